#if canImport(FoundationEssentials)
import FoundationEssentials  // Data and URL, without the rest of Foundation (a client build indexes less)
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A strict JSON (RFC 8259) parser into `HandlerValue`, over UTF-8 bytes.
///
/// It keeps numbers as their text, rejects invalid UTF-8, lone surrogates and duplicate keys,
/// and stops at `maximumDepth` before recursing further, reporting line and column.
struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    private let maximumDepth: Int

    /// Parses `bytes` as one JSON value with nothing but white space after it.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) throws(HandlerError) -> HandlerValue {
        var reader = JSONReader(bytes: bytes, maximumDepth: maximumDepth)
        reader.skipWhitespace()
        let value = try reader.parseValue(depth: 0)
        reader.skipWhitespace()
        if reader.index < bytes.count {
            throw reader.error("unexpected \(reader.describeByte(at: reader.index)) after the document")
        }
        return value
    }

    /// Whether `text` is exactly one JSON number (RFC 8259 grammar, no white space).
    static func isNumber(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { buffer in
            guard let first = buffer.first,
                first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
                case .number? = try? JSONReader.parse(buffer, maximumDepth: 1)
            else { return false }
            return true
        }
    }

    /// Parses a handler document's top level straight into its parts: known member names are
    /// matched as bytes and `bound` goes into `BoundEntry` values without a dictionary. Returns `nil` when
    /// the document is not an object (the caller then reports its shape from a generic parse).
    ///
    /// `id` and `invalidation` are looked up in `registry` straight from their bytes, and a name in
    /// `bound` that is a registered parameter's name reuses that parameter's `String`.
    static func parseDocument(
        _ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, registry: RegistryIndex
    ) throws(HandlerError) -> DocumentParts? {
        var reader = JSONReader(bytes: bytes, maximumDepth: maximumDepth)
        reader.skipWhitespace()
        guard reader.peek(UInt8(ascii: "{")) else { return nil }
        let parts = try reader.parseDocumentObject(registry: registry)
        reader.skipWhitespace()
        if reader.index < bytes.count {
            throw reader.error("unexpected \(reader.describeByte(at: reader.index)) after the document")
        }
        return parts
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    // MARK: Values

    private mutating func parseValue(depth: Int) throws(HandlerError) -> HandlerValue {
        guard index < bytes.count else { throw error("unexpected end of document, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected \(describeByte(at: index)), expected a value")
        }
    }

    private mutating func parseObject(depth: Int) throws(HandlerError) -> HandlerValue {
        var members: [String: HandlerValue] = [:]
        try parseMembers(
            depth: depth, name: { reader throws(HandlerError) in try reader.parseString() }, describe: { $0 }
        ) {
            reader, name, nameStart throws(HandlerError) in
            let value = try reader.parseValue(depth: depth)
            if members.updateValue(value, forKey: name) != nil {
                throw reader.error("duplicate member name \"\(name)\"", at: nameStart)
            }
        }
        return .object(members)
    }

    /// Parses an object's members, from its opening brace to its closing one: `name` reads each
    /// quoted member name and `member` the value after the colon (given the name's offset).
    @inline(__always)
    private mutating func parseMembers<Name>(
        depth: Int,
        name readName: (inout JSONReader) throws(HandlerError) -> Name,
        describe: (Name) -> String,
        member readMember: (inout JSONReader, Name, Int) throws(HandlerError) -> Void
    ) throws(HandlerError) {
        guard depth <= maximumDepth else { throw tooDeep() }
        index += 1  // {
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            return
        }
        while true {
            guard peek(UInt8(ascii: "\"")) else {
                throw error(
                    index < bytes.count
                        ? "expected a member name in quotes, found \(describeByte(at: index))"
                        : "unexpected end of document inside an object")
            }
            let nameStart = index
            let name = try readName(&self)
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "expected ':' after member name \"\(describe(name))\"")
            skipWhitespace()
            try readMember(&self, name, nameStart)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of document inside an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return
            } else {
                throw error("expected ',' or '}' in an object, found \(describeByte(at: index))")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(HandlerError) -> HandlerValue {
        guard depth <= maximumDepth else { throw tooDeep() }
        index += 1  // [
        var elements: [HandlerValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of document inside an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            } else {
                throw error("expected ',' or ']' in an array, found \(describeByte(at: index))")
            }
        }
    }

    // MARK: The document's top level

    private mutating func parseDocumentObject(registry: RegistryIndex) throws(HandlerError) -> DocumentParts {
        var parts = DocumentParts()
        var seenKnown: UInt8 = 0
        var seenUnknown: [String] = []
        try parseMembers(
            depth: 1, name: { reader throws(HandlerError) in try reader.parseDocumentMemberName() }, describe: \.name
        ) {
            reader, member, nameStart throws(HandlerError) in
            let isDuplicate: Bool
            if let bit = member.bit {
                isDuplicate = seenKnown & bit != 0
                seenKnown |= bit
            } else {
                isDuplicate = seenUnknown.contains(member.name)
                seenUnknown.append(member.name)
            }
            if isDuplicate { throw reader.error("duplicate member name \"\(member.name)\"", at: nameStart) }
            switch member {
            case .version: parts.version = try reader.parseVersion()
            case .id:
                if let target = reader.parseRegisteredID(in: registry) {
                    (parts.id, parts.target) = (.string(target.id), target)
                } else {
                    parts.id = try reader.parseValue(depth: 1)
                }
            case .invalidation:
                if let target = reader.parseRegisteredID(in: registry) {
                    (parts.invalidation, parts.invalidationTarget) = (.string(target.id), target)
                } else {
                    parts.invalidation = try reader.parseValue(depth: 1)
                }
            case .bound:
                if reader.peek(UInt8(ascii: "{")) {
                    parts.bound = try reader.parseBoundObject(names: registry)
                } else {
                    parts.boundOther = try reader.parseValue(depth: 1)
                }
            case .unknown(let name):
                _ = try reader.parseValue(depth: 1)
                if parts.unknownMember == nil { parts.unknownMember = name }
            }
        }
        return parts
    }

    /// A bound value; a number is read into `Int`/`Double` from its bytes, not from its text.
    private mutating func parseBoundValue() throws(HandlerError) -> BoundValue {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "-") || isDigit(bytes[index]) else {
            return BoundValue(try parseValue(depth: 2))
        }
        let start = index
        let text = try parseNumber()
        return BoundValue(number: text, utf8: UnsafeBufferPointer(rebasing: bytes[start..<index]))
    }

    /// A string naming a registered handler, resolved from its bytes (no escapes), or `nil` with
    /// nothing consumed when the value is anything else (then it is parsed and checked as usual).
    private mutating func parseRegisteredID(in registry: RegistryIndex) -> HandlerDescriptor? {
        guard peek(UInt8(ascii: "\"")), let end = plainStringEnd(from: index + 1),
            let descriptor = registry.descriptor(utf8: UnsafeBufferPointer(rebasing: bytes[index + 1..<end]))
        else { return nil }
        index = end + 1
        return descriptor
    }

    /// The offset of the closing quote of a string whose content starts at `start`, when that content
    /// is plain ASCII without escapes or control characters; otherwise `nil`.
    func plainStringEnd(from start: Int) -> Int? {
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { return end }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { return nil }
            end += 1
        }
        return nil
    }

    /// The `version` member: the current version without creating a string, anything else as parsed.
    private mutating func parseVersion() throws(HandlerError) -> HandlerValue {
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "1"),
            !isDigit(bytes[index + 1]), bytes[index + 1] != UInt8(ascii: "."),
            bytes[index + 1] != UInt8(ascii: "e"), bytes[index + 1] != UInt8(ascii: "E")
        {
            index += 1
            return Self.versionOne
        }
        return try parseValue(depth: 1)
    }

    private static let versionOne = HandlerValue.number("1")

    /// A top-level member name, compared as bytes when it has no escapes.
    private mutating func parseDocumentMemberName() throws(HandlerError) -> DocumentParts.Member {
        if let end = plainStringEnd(from: index + 1), let base = bytes.baseAddress {
            let start = base + index + 1
            let member: DocumentParts.Member? =
                switch end - index - 1 {
                case 2 where memcmp(start, "id", 2) == 0: .id
                case 5 where memcmp(start, "bound", 5) == 0: .bound
                case 7 where memcmp(start, "version", 7) == 0: .version
                case 12 where memcmp(start, "invalidation", 12) == 0: .invalidation
                default: nil
                }
            if let member {
                index = end + 1
                return member
            }
        }
        return DocumentParts.Member(name: try parseString())
    }

    /// The members of `bound`, at depth 2, without building a dictionary. A name that is a
    /// registered parameter's name reuses that parameter's `String` instead of creating one.
    private mutating func parseBoundObject(names registry: RegistryIndex) throws(HandlerError) -> [BoundEntry] {
        var members: [BoundEntry] = []
        members.reserveCapacity(8)
        try parseMembers(
            depth: 2,
            name: { reader throws(HandlerError) in
                if let end = reader.plainStringEnd(from: reader.index + 1),
                    let known = registry.parameterName(
                        utf8: UnsafeBufferPointer(rebasing: reader.bytes[reader.index + 1..<end]))
                {
                    reader.index = end + 1
                    return known
                }
                return try reader.parseString()
            }, describe: { $0 }
        ) { reader, name, nameStart throws(HandlerError) in
            let value = try reader.parseBoundValue()
            if members.contains(where: { $0.name == name }) {
                throw reader.error("duplicate member name \"\(name)\"", at: nameStart)
            }
            members.append(BoundEntry(name: name, value: value))
        }
        return members
    }

    // MARK: Helpers

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    private mutating func expect(_ byte: UInt8, _ message: @autoclosure () -> String) throws(HandlerError) {
        guard peek(byte) else { throw error(message()) }
        index += 1
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(HandlerError) {
        let start = index
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of document in '\(literal)'", at: start) }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw error("invalid literal, expected '\(literal)'", at: start)
        }
        index += count
    }

    func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    func describeByte(at position: Int) -> String {
        let byte = bytes[position]
        if byte >= 0x21 && byte < 0x7F { return "'\(String(decoding: [byte], as: UTF8.self))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private func tooDeep() -> HandlerError {
        let (line, column) = lineAndColumn(of: index)
        return .nestingTooDeep(limit: maximumDepth, line: line, column: column)
    }

    /// A malformed-JSON error at `position` (the current index by default). An error found at the end
    /// of the bytes says the document is cut short, the usual cause (a partial write or copy).
    func error(_ reason: String, at position: Int? = nil) -> HandlerError {
        let offset = min(position ?? index, bytes.count)
        let (line, column) = lineAndColumn(of: offset)
        let explained = index >= bytes.count ? "\(reason): the document is truncated" : reason
        return .malformedJSON(reason: explained, line: line, column: column, offset: offset)
    }

    /// 1-based line and column (in bytes) of `offset`; only computed when reporting an error.
    private func lineAndColumn(of offset: Int) -> (Int, Int) {
        var line = 1
        var lineStart = 0
        for position in 0..<min(offset, bytes.count) where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        return (line, offset - lineStart + 1)
    }
}
