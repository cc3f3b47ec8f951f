/// Resolves a string literal token (without interpolation) to its value: escapes (`\n`, `\t`, `\r`, `\0`,
/// `\\`, `\"`, `\'`, `\u{…}`), raw strings (`#"…"#`, escapes written `\#n`), multi-line strings (indentation
/// of the closing delimiter removed, line continuations joined).
enum StringLiteralDecoder {
    /// The literal's value, or `nil` when the token is not a complete literal without interpolation, or
    /// holds an invalid escape.
    static func decode(_ literal: [UInt8]) -> String? {
        var index = 0
        var hashes = 0
        while index < literal.count, literal[index] == UInt8(ascii: "#") {
            hashes += 1
            index += 1
        }
        let quote = UInt8(ascii: "\"")
        let isMultiline =
            index + 2 < literal.count && literal[index] == quote && literal[index + 1] == quote
            && literal[index + 2] == quote
        let delimiter = isMultiline ? 3 : 1
        let contentStart = index + delimiter
        let contentEnd = literal.count - hashes - delimiter
        guard index < literal.count, literal[index] == quote, contentEnd >= contentStart else { return nil }
        var content = Array(literal[contentStart..<contentEnd])
        if isMultiline {
            guard let stripped = stripIndentation(content) else { return nil }
            content = stripped
        }
        return resolveEscapes(content, hashes: hashes, multiline: isMultiline)
    }

    /// Multi-line content: drop the line break after the opening `"""`, the last line (the closing
    /// delimiter's indentation) and that indentation from every line.
    private static func stripIndentation(_ content: [UInt8]) -> [UInt8]? {
        var lines: [[UInt8]] = [[]]
        var index = 0
        while index < content.count {
            let byte = content[index]
            if byte == 0x0D, index + 1 < content.count, content[index + 1] == 0x0A {
                index += 1
                continue
            }
            if byte == 0x0A || byte == 0x0D {
                lines.append([])
            } else {
                lines[lines.count - 1].append(byte)
            }
            index += 1
        }
        // The opening line must hold nothing but whitespace.
        guard lines.count >= 2, lines[0].allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { return nil }
        let indentation = lines[lines.count - 1]
        guard indentation.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { return nil }
        let body = lines[1..<(lines.count - 1)]
        var result: [UInt8] = []
        for (offset, line) in body.enumerated() {
            if offset > 0 { result.append(0x0A) }
            if line.starts(with: indentation) {
                result.append(contentsOf: line[indentation.count...])
            } else if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                continue  // a blank line may be less indented
            } else {
                return nil
            }
        }
        return result
    }

    private static func resolveEscapes(_ content: [UInt8], hashes: Int, multiline: Bool) -> String? {
        var output: [UInt8] = []
        output.reserveCapacity(content.count)
        var index = 0
        while index < content.count {
            let byte = content[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            var probe = index + 1
            var found = 0
            while found < hashes, probe < content.count, content[probe] == UInt8(ascii: "#") {
                found += 1
                probe += 1
            }
            guard found == hashes, probe < content.count else {
                output.append(byte)  // a backslash in a raw string
                index += 1
                continue
            }
            let escaped = content[probe]
            index = probe + 1
            switch escaped {
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "0"): output.append(0x00)
            case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"): output.append(escaped)
            case UInt8(ascii: "u"):
                guard index < content.count, content[index] == UInt8(ascii: "{") else { return nil }
                var end = index + 1
                var value: UInt32 = 0
                while end < content.count, content[end] != UInt8(ascii: "}") {
                    guard let digit = hexValue(content[end]), end - index <= 8 else { return nil }
                    value = value * 16 + digit
                    end += 1
                }
                guard end < content.count, end > index + 1, let scalar = Unicode.Scalar(value) else { return nil }
                output.append(contentsOf: Array(String(Character(scalar)).utf8))
                index = end + 1
            case 0x0A where multiline:
                // A line continuation: the line break is not part of the value (trailing spaces before
                // the backslash are kept, as Swift does).
                break
            case 0x20 where multiline, 0x09 where multiline:
                // `\` followed by spaces then a line break is a continuation too.
                var rest = index
                while rest < content.count, content[rest] == 0x20 || content[rest] == 0x09 { rest += 1 }
                guard rest < content.count, content[rest] == 0x0A else { return nil }
                index = rest + 1
            default:
                return nil
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}
