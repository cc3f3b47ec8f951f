/// A handler's bound values at one moment, kept as a small array: handlers bind a handful of
/// values, and a linear scan over short names is faster than hashing them on every call. Numbers
/// are parsed once, when the values are bound or decoded, not on every call.
///
/// Immutable and shared: a call takes the handler's current instance with one retain (it carries
/// the decoding context too, so a call retains nothing else), and `bind` replaces it (`merging`).
@usableFromInline
final class BoundValues: Sendable {
    /// Unique names, in no particular order.
    @usableFromInline let entries: [BoundEntry]
    /// How the values decode: the handler's registry (for nested handlers) and limits.
    @usableFromInline let context: DecodingContext

    init(_ entries: [BoundEntry], context: DecodingContext) {
        self.entries = entries
        self.context = context
    }

    convenience init(_ dictionary: [String: HandlerValue], context: DecodingContext) {
        self.init(BoundEntry.entries(dictionary), context: context)
    }

    /// The position of the value bound to `name`, if any.
    @inlinable @inline(__always)
    func position(of name: String) -> Int? {
        var position = 0
        while position < entries.count {
            if entries[position].name == name { return position }
            position += 1
        }
        return nil
    }

    /// The value bound to `name`, if any (possibly `.null`).
    @inlinable
    func value(named name: String) -> BoundValue? {
        position(of: name).map { entries[$0].value }
    }

    var names: [String] { entries.map(\.name) }

    var dictionary: [String: HandlerValue] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.value.value) })
    }

    /// These values with `newValues` added, replacing values of the same names.
    func merging(_ newValues: [String: HandlerValue]) -> BoundValues {
        var entries = entries
        for (name, value) in newValues {
            if let position = entries.firstIndex(where: { $0.name == name }) {
                entries[position].value = BoundValue(value)
            } else {
                entries.append(BoundEntry(name: name, value: BoundValue(value)))
            }
        }
        return BoundValues(entries, context: context)
    }
}

/// One bound value and its name.
@usableFromInline
struct BoundEntry: Sendable {
    @usableFromInline var name: String
    @usableFromInline var value: BoundValue

    /// The entries of `values`, their numbers parsed, in no particular order.
    static func entries(_ values: [String: HandlerValue]) -> [BoundEntry] {
        values.map { BoundEntry(name: $0.key, value: BoundValue($0.value)) }
    }
}

/// A bound value with its number already parsed: as `Int` when it is a whole number that fits,
/// else as `Double`.
@usableFromInline
struct BoundValue: Sendable {
    @usableFromInline let value: HandlerValue
    @usableFromInline let integer: Int?
    @usableFromInline let double: Double?

    init(_ value: HandlerValue) {
        if case .number(let text) = value {
            var utf8 = text
            self = utf8.withUTF8 { Self(number: text, utf8: $0) }
        } else {
            self.value = value
            integer = nil
            double = nil
        }
    }

    /// A JSON number, given as its text and the same text's UTF-8 bytes.
    init(number text: String, utf8: UnsafeBufferPointer<UInt8>) {
        value = .number(text)
        integer = Self.integer(utf8)
        double = integer == nil ? (Self.exactShortDecimal(utf8) ?? Double(text)) : nil
    }

    /// A JSON number's bytes as an `Int`, when it is an integer (no fraction, no exponent) that fits.
    static func integer(_ utf8: UnsafeBufferPointer<UInt8>) -> Int? {
        var position = 0
        let isNegative = utf8.first == UInt8(ascii: "-")
        if isNegative { position = 1 }
        guard position < utf8.count else { return nil }
        var value = 0
        while position < utf8.count {
            let digit = utf8[position] &- UInt8(ascii: "0")
            guard digit <= 9 else { return nil }
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowedAgain) =
                isNegative
                ? shifted.subtractingReportingOverflow(Int(digit)) : shifted.addingReportingOverflow(Int(digit))
            guard !overflowed, !overflowedAgain else { return nil }
            value = next
            position += 1
        }
        return value
    }

    /// `utf8` (a JSON number) as a `Double` without `strtod` when that is exact: a decimal mantissa
    /// below 2^53 and a power of ten up to 10^22 are both exact doubles, so one multiplication or
    /// division rounds correctly. `nil` when the number is outside that range.
    static func exactShortDecimal(_ utf8: UnsafeBufferPointer<UInt8>) -> Double? {
        var mantissa: UInt64 = 0
        var exponent = 0
        var isNegative = false
        var afterPoint = false
        var digits = 0
        var utf8 = utf8.makeIterator()
        var byte = utf8.next()
        if byte == UInt8(ascii: "-") {
            isNegative = true
            byte = utf8.next()
        }
        while let current = byte {
            switch current {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                guard digits <= 15 else { return nil }
                mantissa = mantissa * 10 + UInt64(current - UInt8(ascii: "0"))
                if afterPoint { exponent -= 1 }
            case UInt8(ascii: "."):
                afterPoint = true
            default:
                return nil  // an exponent: leave it to the full parser
            }
            byte = utf8.next()
        }
        guard digits > 0, -exponent < powersOfTen.count else { return nil }
        let value = Double(mantissa) / powersOfTen[-exponent]
        return isNegative ? -value : value
    }

    /// 10^0 … 10^22, every one an exact `Double`.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// The largest magnitude below which every integer is exactly a `Double`.
    @usableFromInline static let exactDoubleLimit = 1 << 53

    /// The value as `String`, `Int`, `Bool` or `Double` without a dynamic cast once specialized;
    /// `nil` for other types and for mismatches (which the full decoder then reports).
    @inlinable
    func fastScalar<T>() -> T? {
        if T.self == Int.self, let integer { return integer as? T }
        if T.self == Double.self {
            if let double { return double as? T }
            if let integer, integer.magnitude <= Self.exactDoubleLimit { return Double(integer) as? T }
            return nil
        }
        switch value {
        case .string(let text) where T.self == String.self: return text as? T
        case .bool(let flag) where T.self == Bool.self: return flag as? T
        default: return nil
        }
    }

    /// Whether `fastScalar` returns a value for `T` (checked without a dynamic cast, for validation).
    func hasFastScalar<T>(of type: T.Type) -> Bool {
        switch value {
        case .number where T.self == Int.self: integer != nil
        case .number where T.self == Double.self:
            double != nil || (integer.map { $0.magnitude <= Self.exactDoubleLimit } ?? false)
        case .string where T.self == String.self: true
        case .bool where T.self == Bool.self: true
        default: false
        }
    }
}
