/// Writes `HandlerValue`s as deterministic JSON: object members sorted by name (by their UTF-8
/// bytes), numbers as their exact text, non-ASCII text as UTF-8 (only `"`, `\` and control
/// characters are escaped), so equal values always produce identical bytes.
struct JSONWriter {
    /// Whether to indent with two spaces and put members on their own lines.
    var prettyPrinted: Bool
    private(set) var output: [UInt8] = []

    init(prettyPrinted: Bool = false, capacity: Int = 128) {
        self.prettyPrinted = prettyPrinted
        output.reserveCapacity(capacity)
    }

    mutating func write(_ value: HandlerValue, indent: Int = 0) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): writeString(text)
        case .array(let elements): writeArray(elements, indent: indent)
        case .object(let members): writeObject(members, indent: indent)
        }
    }

    private mutating func writeArray(_ elements: [HandlerValue], indent: Int) {
        output.append(UInt8(ascii: "["))
        for (position, element) in elements.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            newline(indent: indent + 1)
            write(element, indent: indent + 1)
        }
        if !elements.isEmpty { newline(indent: indent) }
        output.append(UInt8(ascii: "]"))
    }

    private mutating func writeObject(_ members: [String: HandlerValue], indent: Int) {
        output.append(UInt8(ascii: "{"))
        let names = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for (position, name) in names.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            newline(indent: indent + 1)
            writeString(name)
            output.append(UInt8(ascii: ":"))
            if prettyPrinted { output.append(UInt8(ascii: " ")) }
            if let member = members[name] { write(member, indent: indent + 1) }
        }
        if !names.isEmpty { newline(indent: indent) }
        output.append(UInt8(ascii: "}"))
    }

    private mutating func writeString(_ text: String) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0..<0x20:
                append("\\u00")
                output.append(Self.hexDigits[Int(byte >> 4)])
                output.append(Self.hexDigits[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private mutating func newline(indent: Int) {
        guard prettyPrinted else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    private mutating func append(_ text: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

extension HandlerValue {
    /// The value written as JSON by `JSONWriter`.
    func jsonBytes(prettyPrinted: Bool) -> [UInt8] {
        var writer = JSONWriter(prettyPrinted: prettyPrinted)
        writer.write(self)
        return writer.output
    }
}
