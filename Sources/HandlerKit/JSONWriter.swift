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

    /// Writes `value`: recursively down to `64` levels (every value a
    /// document may hold, and fastest), deeper parts with an explicit stack, so a value of any depth,
    /// however it was built, is written without risk to the stack.
    mutating func write(_ value: HandlerValue, indent: Int = 0) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): writeString(text)
        case .array(let elements):
            if indent < Self.recursionLimit {
                writeArray(elements, indent: indent)
            } else {
                writeIteratively(value, indent: indent)
            }
        case .object(let members):
            if indent < Self.recursionLimit {
                writeObject(members, indent: indent)
            } else {
                writeIteratively(value, indent: indent)
            }
        }
    }

    /// The levels written recursively.
    private static let recursionLimit = DecodingLimits.default.maximumDepth

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
        let names = Self.sortedNames(of: members)
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

    /// An array or object being written iteratively: what it holds and the position of the next
    /// element or member.
    private enum OpenContainer {
        case array([HandlerValue], next: Int)
        case object([String: HandlerValue], names: [String], next: Int)
    }

    /// Writes `value`, `indent` levels deep, without recursion: its open arrays and objects are kept
    /// on a stack of its own.
    private mutating func writeIteratively(_ value: HandlerValue, indent baseIndent: Int) {
        var open: [OpenContainer] = []
        var next: HandlerValue? = value
        while true {
            if let value = next {
                next = nil
                switch value {
                case .null: append("null")
                case .bool(let flag): append(flag ? "true" : "false")
                case .number(let text): output.append(contentsOf: text.utf8)
                case .string(let text): writeString(text)
                case .array(let elements):
                    output.append(UInt8(ascii: "["))
                    if elements.isEmpty {
                        output.append(UInt8(ascii: "]"))
                    } else {
                        open.append(.array(elements, next: 0))
                    }
                case .object(let members):
                    output.append(UInt8(ascii: "{"))
                    if members.isEmpty {
                        output.append(UInt8(ascii: "}"))
                    } else {
                        open.append(.object(members, names: Self.sortedNames(of: members), next: 0))
                    }
                }
            }
            guard let container = open.popLast() else { return }
            // The open containers around this one: its indentation.
            let indent = baseIndent + open.count
            switch container {
            case .array(let elements, let position):
                if position < elements.count {
                    if position > 0 { output.append(UInt8(ascii: ",")) }
                    newline(indent: indent + 1)
                    next = elements[position]
                    open.append(.array(elements, next: position + 1))
                } else {
                    newline(indent: indent)
                    output.append(UInt8(ascii: "]"))
                }
            case .object(let members, let names, let position):
                if position < names.count {
                    if position > 0 { output.append(UInt8(ascii: ",")) }
                    newline(indent: indent + 1)
                    writeString(names[position])
                    output.append(UInt8(ascii: ":"))
                    if prettyPrinted { output.append(UInt8(ascii: " ")) }
                    next = members[names[position]]
                    open.append(.object(members, names: names, next: position + 1))
                } else {
                    newline(indent: indent)
                    output.append(UInt8(ascii: "}"))
                }
            }
        }
    }

    /// The names of `members` in the order they are written: by their UTF-8 bytes.
    static func sortedNames(of members: [String: HandlerValue]) -> [String] {
        members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
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
