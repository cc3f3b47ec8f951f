/// The literals whose ends take more than a glance: strings (raw, multi-line, with interpolations)
/// and regex literals.
extension Lexer {
    // MARK: - String literals

    /// Lexes a string literal whose opening quote is at `quoteAt`, after `hashes` `#` characters.
    mutating func lexString(start: Int, hashes: Int, quoteAt: Int) -> Token {
        let count = bytes.count
        var multiline =
            quoteAt + 2 < count && bytes[quoteAt + 1] == UInt8(ascii: "\"")
            && bytes[quoteAt + 2] == UInt8(ascii: "\"")
        if multiline, hashes > 0 {
            // A raw string that closes on its own line is single-line even if it starts with `"""`:
            // `#"""#` holds one `"`, `###"""abc"###` holds `""abc`.
            var index = quoteAt + 1
            while index < count, bytes[index] != 0x0A, bytes[index] != 0x0D {
                if bytes[index] == UInt8(ascii: "\"") {
                    var probe = index + 1
                    var found = 0
                    while found < hashes, probe < count, bytes[probe] == UInt8(ascii: "#") {
                        found += 1
                        probe += 1
                    }
                    if found == hashes {
                        multiline = false
                        break
                    }
                }
                index += 1
            }
        }
        position = quoteAt + (multiline ? 3 : 1)
        var flags: UInt8 = multiline ? Token.isMultiline : 0
        var terminated = false
        scan: while position < count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\\") {
                var index = position + 1
                var found = 0
                while found < hashes, index < count, bytes[index] == UInt8(ascii: "#") {
                    found += 1
                    index += 1
                }
                if found == hashes {
                    if index < count, bytes[index] == UInt8(ascii: "(") {
                        position = index + 1
                        flags |= Token.hasInterpolation
                        skipInterpolation()
                        continue
                    }
                    // An escape: skip the escaped character (in multi-line strings it may be a line break).
                    position = min(index + 1, count)
                    if !multiline, index < count, bytes[index] == 0x0A || bytes[index] == 0x0D {
                        position = index  // a single-line string never spans lines
                    }
                    continue
                }
                position += 1
            } else if byte == UInt8(ascii: "\"") {
                let quotes = multiline ? 3 : 1
                var index = position
                var matched = 0
                while matched < quotes, index < count, bytes[index] == UInt8(ascii: "\"") {
                    matched += 1
                    index += 1
                }
                if matched == quotes {
                    var found = 0
                    while found < hashes, index < count, bytes[index] == UInt8(ascii: "#") {
                        found += 1
                        index += 1
                    }
                    if found == hashes {
                        position = index
                        terminated = true
                        break scan
                    }
                }
                position += 1
            } else if !multiline, byte == 0x0A || byte == 0x0D {
                break scan
            } else {
                position = plainTextEnd(from: position + 1)
            }
        }
        if !terminated { flags |= Token.isUnterminated }
        return Token(kind: .string, start: start, end: position, newlineBefore: false, flags: flags)
    }

    /// The offset of the first `\`, `"` or line break at or after `start`, or the end: a string's text
    /// up to the next byte that can end it, escape or interpolate, eight bytes at a time.
    @inline(__always)
    private func plainTextEnd(from start: Int) -> Int {
        let count = bytes.count
        var index = start
        if let base = bytes.baseAddress {
            while index + 8 <= count {
                let stops = ByteWords.equal(
                    ByteWords.load(base + index), to: UInt8(ascii: "\\"), UInt8(ascii: "\""), 0x0A, 0x0D)
                if stops != 0 { return index + stops.trailingZeroBitCount >> 3 }
                index += 8
            }
        }
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") || byte == 0x0A || byte == 0x0D { break }
            index += 1
        }
        return index
    }

    /// Skips an interpolation `\( … )` up to its closing parenthesis, lexing the expression inside so that
    /// nested strings, parentheses, closures and comments are handled.
    private mutating func skipInterpolation() {
        let savedKind = previousKind
        let savedStart = previousStart
        let savedEnd = previousEnd
        previousKind = .leftParen
        var depth = 1
        while true {
            let token = next()
            switch token.kind {
            case .leftParen: depth += 1
            case .rightParen:
                depth -= 1
                if depth == 0 {
                    previousKind = savedKind
                    previousStart = savedStart
                    previousEnd = savedEnd
                    return
                }
            case .endOfFile:
                return
            default:
                break
            }
        }
    }

    // MARK: - Regex literals

    /// Whether a `/` here may open a bare regex literal: only where an expression can start (after an
    /// operator, an opening bracket, a comma or colon, or a keyword such as `return`), never after an operand.
    func regexMayStartHere() -> Bool {
        switch previousKind {
        case .endOfFile, .leftParen, .leftBrace, .leftBracket, .comma, .colon, .semicolon, .at:
            return true
        case .op:
            // A postfix `?` or `!` glued to an operand (`x! / y`) ends an operand.
            if previousEnd - previousStart == 1 {
                let byte = bytes[previousStart]
                if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "!") {
                    if previousStart == 0 { return true }
                    let before = bytes[previousStart - 1]
                    return before == 0x20 || before == 0x09 || before == 0x0A || before == 0x0D
                }
            }
            return true
        case .identifier:
            return Keywords.allowsExpressionAfter(self, previousStart, previousEnd)
        default:
            return false
        }
    }

    /// The end of a bare `/…/` regex literal starting at `start`, or `nil` when this `/` is an operator:
    /// it may not start or end with a space or tab, must close on the same line and may not hold an
    /// unbalanced `)`.
    func bareRegexEnd(from start: Int) -> Int? {
        let count = bytes.count
        var index = start + 1
        guard index < count else { return nil }
        let first = bytes[index]
        // Never a regex: `/ x`, `//`, `/*`, and `/)` (an unapplied operator such as `reduce(0, /)`).
        if first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D || first == UInt8(ascii: "/")
            || first == UInt8(ascii: "*") || first == UInt8(ascii: ")")
        {
            return nil
        }
        var parentheses = 0
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == 0x0A || byte == 0x0D { return nil }
            // An unbalanced `)` means this `/` is a prefix operator in a call: `f({ /a ~= $0 }).g(/b)`.
            if byte == UInt8(ascii: "(") { parentheses += 1 }
            if byte == UInt8(ascii: ")") {
                parentheses -= 1
                if parentheses < 0 { return nil }
            }
            if byte == UInt8(ascii: "/") {
                let before = bytes[index - 1]
                if before == 0x20 || before == 0x09 { return nil }
                return index + 1
            }
            index += 1
        }
        return nil
    }

    /// The end of an extended regex literal `#/…/#` (any number of `#`; multi-line when the opening
    /// delimiter ends its line), or `nil` when a single-line one does not close on its line.
    func extendedRegexEnd(hashes: Int, slashAt: Int) -> Int? {
        let count = bytes.count
        var index = slashAt + 1
        var multiline = false
        var probe = index
        while probe < count, bytes[probe] == 0x20 || bytes[probe] == 0x09 { probe += 1 }
        if probe < count, bytes[probe] == 0x0A || bytes[probe] == 0x0D { multiline = true }
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if !multiline, byte == 0x0A || byte == 0x0D { return nil }
            if byte == UInt8(ascii: "/") {
                var end = index + 1
                var found = 0
                while found < hashes, end < count, bytes[end] == UInt8(ascii: "#") {
                    found += 1
                    end += 1
                }
                if found == hashes { return end }
            }
            index += 1
        }
        return multiline ? count : nil
    }
}
