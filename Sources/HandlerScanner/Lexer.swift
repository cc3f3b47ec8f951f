/// A pull lexer over UTF-8 bytes. It skips whitespace and comments (nested block comments, line and
/// doc comments) and returns one token at a time, so nothing is allocated while scanning.
///
/// The lexer is a value: copying it gives an independent look-ahead cursor. The buffer must stay alive
/// while the lexer is used (callers run it inside `withUnsafeBufferPointer`).
struct Lexer {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int
    private let table = CharacterTable.table

    /// The previous token, for the regex-literal heuristic (`/` after an operand is division).
    var previousKind: TokenKind = .endOfFile
    var previousStart = 0
    var previousEnd = 0

    init(bytes: UnsafeBufferPointer<UInt8>, position: Int = 0) {
        self.bytes = bytes
        self.position = position
        if position == 0 { skipPreamble() }
    }

    /// Skips a UTF-8 byte order mark and a `#!` line at the very start of a file.
    private mutating func skipPreamble() {
        let count = bytes.count
        if count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        if position + 1 < count, bytes[position] == UInt8(ascii: "#"), bytes[position + 1] == UInt8(ascii: "!") {
            while position < count, bytes[position] != 0x0A { position += 1 }
        }
    }

    /// The token's text as a `String` (lossless for valid UTF-8).
    func text(_ token: Token) -> String { text(from: token.start, to: token.end) }

    func text(from start: Int, to end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// Whether the token's bytes equal `literal` (ASCII).
    func token(_ token: Token, is literal: StaticString) -> Bool {
        bytesEqual(token.start, token.end, literal)
    }

    func bytesEqual(_ start: Int, _ end: Int, _ literal: StaticString) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard end - start == length else { return false }
        let pointer = literal.utf8Start
        var index = 0
        while index < length {
            if bytes[start + index] != pointer[index] { return false }
            index += 1
        }
        return true
    }

    // MARK: - Tokens

    /// Returns the next token; `.endOfFile` (repeatedly) at the end.
    @inline(__always)
    mutating func next() -> Token {
        let count = bytes.count
        var newline = false
        // Trivia: whitespace and comments. A local index keeps the hot loop in registers.
        var index = position
        while index < count {
            let byte = bytes[index]
            if byte > 0x20, byte != 0x2F { break }  // the common case: a token starts here
            if byte == 0x20 || byte == 0x09 {
                index += 1
                // Indentation: skip runs of spaces without going through the dispatch below.
                while index < count, bytes[index] == 0x20 { index += 1 }
            } else if byte == 0x0A || byte == 0x0D {
                newline = true
                index += 1
            } else if byte == 0x2F, index + 1 < count {  // "/"
                let following = bytes[index + 1]
                if following == 0x2F {
                    index = lineEnd(from: index + 2)
                } else if following == 0x2A {
                    position = index
                    if skipBlockComment() { newline = true }
                    index = position
                } else {
                    break
                }
            } else if byte == 0x0B || byte == 0x0C || byte == 0x00 {
                index += 1
            } else {
                break
            }
        }
        position = index
        let start = position
        guard start < count else {
            return Token(kind: .endOfFile, start: count, end: count, newlineBefore: newline, flags: 0)
        }
        var token = lexToken(at: start)
        token.newlineBefore = newline
        previousKind = token.kind
        previousStart = token.start
        previousEnd = token.end
        return token
    }

    /// The offset of the next line break (`\n` or `\r`) at or after `start`, or the end.
    @inline(__always)
    private func lineEnd(from start: Int) -> Int {
        let count = bytes.count
        var index = start
        guard let base = bytes.baseAddress else { return count }
        // Eight bytes at a time while none of them can be a line break (both are below 0x0E).
        while index + 8 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let lf = word ^ 0x0A0A_0A0A_0A0A_0A0A
            let cr = word ^ 0x0D0D_0D0D_0D0D_0D0D
            let ones: UInt64 = 0x0101_0101_0101_0101
            let high: UInt64 = 0x8080_8080_8080_8080
            if ((lf &- ones) & ~lf & high) | ((cr &- ones) & ~cr & high) != 0 { break }
            index += 8
        }
        while index < count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
        return index
    }

    /// Skips `/* … */` with nesting; returns whether it contained a line break. Unterminated comments run
    /// to the end of the file.
    private mutating func skipBlockComment() -> Bool {
        let count = bytes.count
        var depth = 0
        var sawNewline = false
        while position < count {
            let byte = bytes[position]
            if byte == 0x2F, position + 1 < count, bytes[position + 1] == 0x2A {
                depth += 1
                position += 2
            } else if byte == 0x2A, position + 1 < count, bytes[position + 1] == 0x2F {
                depth -= 1
                position += 2
                if depth == 0 { return sawNewline }
            } else {
                if byte == 0x0A || byte == 0x0D { sawNewline = true }
                position += 1
            }
        }
        return sawNewline
    }

    @inline(__always)
    private mutating func lexToken(at start: Int) -> Token {
        let byte = bytes[start]
        if isIdentifierHead(byte) {
            position = identifierEnd(from: start + 1)
            return Token(kind: .identifier, start: start, end: position, newlineBefore: false, flags: 0)
        }
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            lexNumber(from: start)
            return Token(kind: .number, start: start, end: position, newlineBefore: false, flags: 0)
        case UInt8(ascii: "\""):
            return lexString(start: start, hashes: 0, quoteAt: start)
        case UInt8(ascii: "#"):
            return lexPound(start: start)
        case UInt8(ascii: "`"):
            return lexBacktick(start: start)
        case UInt8(ascii: "("): return single(.leftParen, start)
        case UInt8(ascii: ")"): return single(.rightParen, start)
        case UInt8(ascii: "{"): return single(.leftBrace, start)
        case UInt8(ascii: "}"): return single(.rightBrace, start)
        case UInt8(ascii: "["): return single(.leftBracket, start)
        case UInt8(ascii: "]"): return single(.rightBracket, start)
        case UInt8(ascii: ","): return single(.comma, start)
        case UInt8(ascii: ":"): return single(.colon, start)
        case UInt8(ascii: ";"): return single(.semicolon, start)
        case UInt8(ascii: "@"): return single(.at, start)
        case UInt8(ascii: "\\"): return single(.backslash, start)
        case UInt8(ascii: "."):
            if start + 1 < bytes.count, bytes[start + 1] == UInt8(ascii: ".") {
                return lexOperator(start: start, dotted: true)
            }
            return single(.dot, start)
        case UInt8(ascii: "/"):
            if regexMayStartHere(), let end = bareRegexEnd(from: start) {
                position = end
                return Token(kind: .regex, start: start, end: end, newlineBefore: false, flags: 0)
            }
            return lexOperator(start: start, dotted: false)
        default:
            if isOperatorByte(byte) { return lexOperator(start: start, dotted: false) }
            return single(.unknown, start)
        }
    }

    private mutating func single(_ kind: TokenKind, _ start: Int) -> Token {
        position = start + 1
        return Token(kind: kind, start: start, end: start + 1, newlineBefore: false, flags: 0)
    }

    @inline(__always)
    private func isIdentifierHead(_ byte: UInt8) -> Bool {
        table[Int(byte)] & CharacterTable.identifierHead != 0
    }

    @inline(__always)
    private func isIdentifierBody(_ byte: UInt8) -> Bool {
        table[Int(byte)] & CharacterTable.identifierBody != 0
    }

    @inline(__always)
    private func identifierEnd(from start: Int) -> Int {
        var index = start
        let count = bytes.count
        if let base = bytes.baseAddress {
            // Eight bytes at a time: one test per word instead of a table look-up and branch per byte.
            while index + 8 <= count {
                let stops = ~ByteWords.identifierBody(ByteWords.load(base + index)) & 0x8080_8080_8080_8080
                if stops != 0 { return index + stops.trailingZeroBitCount >> 3 }
                index += 8
            }
        }
        while index < count, table[Int(bytes[index])] & CharacterTable.identifierBody != 0 { index += 1 }
        return index
    }

    @inline(__always)
    func isOperatorByte(_ byte: UInt8) -> Bool {
        table[Int(byte)] & CharacterTable.operatorCharacter != 0
    }

    private mutating func lexOperator(start: Int, dotted: Bool) -> Token {
        let count = bytes.count
        var index = start + 1
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/"), index + 1 < count,
                bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "*")
            {
                break  // a comment starts inside the operator run
            }
            if isOperatorByte(byte) || (dotted && byte == UInt8(ascii: ".")) {
                index += 1
            } else {
                break
            }
        }
        position = index
        return Token(kind: .op, start: start, end: index, newlineBefore: false, flags: 0)
    }

    private mutating func lexNumber(from start: Int) {
        let count = bytes.count
        let isHex =
            start + 1 < count && bytes[start] == UInt8(ascii: "0") && (bytes[start + 1] | 0x20) == UInt8(ascii: "x")
        var index = start + 1
        while index < count {
            let byte = bytes[index]
            if isIdentifierBody(byte) && byte < 0x80 {
                index += 1
            } else if byte == UInt8(ascii: "."), index + 1 < count, bytes[index + 1] &- UInt8(ascii: "0") < 10 {
                index += 1
            } else if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+"), index + 1 < count,
                bytes[index + 1] &- UInt8(ascii: "0") < 10
            {
                let exponent = bytes[index - 1] | 0x20
                if (isHex && exponent == UInt8(ascii: "p")) || (!isHex && exponent == UInt8(ascii: "e")) {
                    index += 1
                } else {
                    break
                }
            } else {
                break
            }
        }
        position = index
    }

    private mutating func lexBacktick(start: Int) -> Token {
        let count = bytes.count
        var index = start + 1
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "`") {
                position = index + 1
                return Token(
                    kind: .identifier, start: start, end: position, newlineBefore: false, flags: Token.isBackticked)
            }
            if byte == 0x0A || byte == 0x0D { break }
            index += 1
        }
        return single(.unknown, start)
    }

    /// `#` starts a raw string (`#"`), an extended regex (`#/`), a directive or macro (`#if`), or nothing.
    private mutating func lexPound(start: Int) -> Token {
        let count = bytes.count
        var index = start
        while index < count, bytes[index] == UInt8(ascii: "#") { index += 1 }
        let hashes = index - start
        if index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                return lexString(start: start, hashes: hashes, quoteAt: index)
            }
            if byte == UInt8(ascii: "/"), let end = extendedRegexEnd(hashes: hashes, slashAt: index) {
                position = end
                return Token(kind: .regex, start: start, end: end, newlineBefore: false, flags: 0)
            }
            if hashes == 1, isIdentifierHead(byte) {
                position = identifierEnd(from: index + 1)
                return Token(kind: .pound, start: start, end: position, newlineBefore: false, flags: 0)
            }
        }
        return single(.unknown, start)
    }
}
