/// The lexical classes the scanner distinguishes. Comments and whitespace never become tokens.
enum TokenKind: UInt8 {
    case endOfFile
    /// A plain, backticked or Unicode identifier; keywords are identifiers too.
    case identifier
    case number
    /// Any string literal: `"…"`, `"""…"""`, raw `#"…"#` (any number of `#`), with interpolations.
    case string
    /// A regex literal: `/…/` or `#/…/#` (any number of `#`, possibly multi-line).
    case regex
    /// A run of operator characters, e.g. `->`, `>>`, `?`, `...`, `=`.
    case op
    case leftParen, rightParen
    case leftBrace, rightBrace
    case leftBracket, rightBracket
    case comma, colon, semicolon
    /// A single `.` (member access); `..<` and `...` are operators.
    case dot
    case at
    /// `#` directly followed by an identifier: `#if`, `#endif`, `#warning`, `#selector`, macros.
    case pound
    case backslash
    /// A byte that starts no token Swift knows (lexing goes on after it).
    case unknown
}

/// One token: its kind and byte range in the source. Plain value, no text copied.
struct Token {
    var kind: TokenKind
    /// Byte offset of the first byte.
    var start: Int
    /// Byte offset one past the last byte.
    var end: Int
    /// Whether a line break (possibly inside a comment) separates this token from the previous one.
    var newlineBefore: Bool
    /// Kind-specific flags: `hasInterpolation`, `isMultiline`, `isUnterminated`, `isBackticked`.
    var flags: UInt8

    static let hasInterpolation: UInt8 = 1
    static let isMultiline: UInt8 = 2
    static let isUnterminated: UInt8 = 4
    static let isBackticked: UInt8 = 8

    func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
}
