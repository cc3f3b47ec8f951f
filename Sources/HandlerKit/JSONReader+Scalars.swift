/// The scalars of a JSON document: strings (escapes, surrogate pairs, UTF-8 validation) and numbers
/// (the RFC 8259 grammar, kept as their text).
extension JSONReader {
    // MARK: Strings

    mutating func parseString() throws(HandlerError) -> String {
        let start = index
        if let end = plainStringEnd(from: start + 1) {
            index = end + 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start + 1..<end]), as: UTF8.self)
        }
        index = start + 1  // after the opening quote
        return try parseStringSlowly(openedAt: start)
    }

    /// Handles escapes and validates multi-byte UTF-8 sequences.
    private mutating func parseStringSlowly(openedAt start: Int) throws(HandlerError) -> String {
        var utf8: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            case 0..<0x20:
                throw error("control character \(describeByte(at: index)) in a string must be escaped")
            case 0x20..<0x80:
                utf8.append(byte)
                index += 1
            default:
                let length = try validatedUTF8SequenceLength(at: index)
                utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<index + length]))
                index += length
            }
        }
        throw error("unterminated string", at: start)
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(HandlerError) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else { throw error("unterminated escape sequence", at: escapeStart) }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): utf8.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): utf8.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): utf8.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try parseHex4(escapeStart: escapeStart))
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw error("lone high surrogate \\u\(hex(scalar)) is not a character", at: escapeStart)
                }
                index += 2
                let low = UInt32(try parseHex4(escapeStart: escapeStart))
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("high surrogate \\u\(hex(scalar)) is not followed by a low surrogate", at: escapeStart)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("lone low surrogate \\u\(hex(scalar)) is not a character", at: escapeStart)
            }
            guard let unicode = Unicode.Scalar(scalar) else {
                throw error("\\u\(hex(scalar)) is not a Unicode scalar", at: escapeStart)
            }
            utf8.append(contentsOf: String(Character(unicode)).utf8)
        default:
            throw error("invalid escape sequence '\\\(String(decoding: [byte], as: UTF8.self))'", at: escapeStart)
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws(HandlerError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw error("incomplete \\u escape", at: escapeStart) }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape", at: escapeStart)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// The length of the well-formed UTF-8 sequence starting at `position` (a byte >= 0x80).
    private func validatedUTF8SequenceLength(at position: Int) throws(HandlerError) -> Int {
        let lead = bytes[position]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            upper = 0x9F
        case 0xF0:
            length = 4
            lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            upper = 0x8F
        default: throw error("invalid UTF-8 byte \(describeByte(at: position))", at: position)
        }
        guard position + length <= bytes.count else { throw error("truncated UTF-8 sequence", at: position) }
        for offset in 1..<length {
            let byte = bytes[position + offset]
            let (low, high) = offset == 1 ? (lower, upper) : (0x80, 0xBF)
            guard byte >= low && byte <= high else { throw error("invalid UTF-8 sequence", at: position) }
        }
        return length
    }

    // MARK: Numbers

    /// Validates the RFC 8259 number grammar and returns the number's text unchanged.
    mutating func parseNumber() throws(HandlerError) -> String {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs digits", at: start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw error("a number must not have leading zeros", at: start)
            }
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("a number needs digits after '.'", at: start)
            }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error("a number needs digits in its exponent", at: start)
            }
            skipDigits()
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
}
