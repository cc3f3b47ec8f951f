#if SignalsDashboard
/// What was wrong with a request's input: answered with a 400 page that says so, and nothing changes.
struct InputError: Error, Sendable {
    var message: String

    init(_ message: String) {
        self.message = message
    }
}

/// The parameters of a query string or of a form sent as `application/x-www-form-urlencoded`,
/// checked as they are read: each name known to the page, given once (unless it may repeat), and
/// each value valid UTF-8 without control characters and at most ``maximumLength`` characters long.
/// An empty value counts as absent (a form's empty field).
struct Parameters: Sendable {
    /// The longest value accepted.
    static let maximumLength = 1_000

    private var values: [String: [String]] = [:]

    /// The parameters of `encoded` (`a=1&b=x+y`), of which only the names in `known` are accepted,
    /// and only those in `repeatable` more than once.
    init(_ encoded: String?, known: Set<String>, repeatable: Set<String> = []) throws(InputError) {
        guard let encoded, !encoded.isEmpty else { return }
        for pair in encoded.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.decode(parts[0], what: "a parameter's name")
            guard known.contains(name) else {
                let shown = name.count > 40 ? String(name.prefix(40)) + "…" : name
                throw InputError(
                    "unknown parameter '\(shown)' (this page takes \(known.sorted().joined(separator: ", ")))")
            }
            let value = try Self.decode(parts.count > 1 ? parts[1] : "", what: "parameter '\(name)'")
            guard value.count <= Self.maximumLength else {
                throw InputError("parameter '\(name)' is longer than \(Self.maximumLength) characters")
            }
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw InputError("parameter '\(name)' contains a control character")
            }
            if values[name] != nil && !repeatable.contains(name) {
                throw InputError("parameter '\(name)' is given more than once")
            }
            if !value.isEmpty { values[name, default: []].append(value) }
        }
    }

    /// The value of `name`, or `nil` when it is absent or empty.
    subscript(_ name: String) -> String? {
        values[name]?.first
    }

    /// Every value of `name` (a parameter that may repeat).
    func all(_ name: String) -> [String] {
        values[name] ?? []
    }

    /// The value of `name`, which must be there.
    func required(_ name: String) throws(InputError) -> String {
        guard let value = self[name] else { throw InputError("parameter '\(name)' is missing") }
        return value
    }

    /// `text` with `+` as a space and `%XX` as the byte XX, read as UTF-8.
    private static func decode(_ text: Substring, what: String) throws(InputError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var input = text.utf8.makeIterator()
        while let byte = input.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = input.next().flatMap(hexValue), let low = input.next().flatMap(hexValue) else {
                    throw InputError("\(what) has a '%' not followed by two hexadecimal digits")
                }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw InputError("\(what) is not valid UTF-8")
        }
        return decoded
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
#endif
