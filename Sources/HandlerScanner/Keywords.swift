/// The keywords the scanner reacts to, recognised by comparing bytes (no `String` is built).
enum Keyword: UInt8 {
    // Declarations that open a type body.
    case `struct`, `class`, `enum`, `actor`, `protocol`, `extension`
    // Other declarations: they end any pending type header.
    case `func`, `var`, `let`, `init`, `subscript`, `case`, `typealias`, `import`, `deinit`,
        `associatedtype`, `operator`, `precedencegroup`, `macro`
    // Access levels: `private`/`fileprivate` make an enclosing type private; the others cap or set
    // the access of the generated members.
    case `private`, `fileprivate`, `internal`, `package`, `public`, `open`
}

enum Keywords {
    /// Classifies an identifier token; `nil` for every identifier the scanner does not care about.
    /// On the hot path: identifiers of up to eight bytes are compared as one little-endian word.
    @inline(__always)
    static func classify(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Keyword? {
        let length = end - start
        guard length >= 3 else { return nil }
        // Every keyword starts with one of these lowercase letters: type names and most other words
        // are rejected on their first byte.
        let first = bytes[start] &- UInt8(ascii: "a")
        guard first < 26, keywordInitials & (1 << UInt32(first)) != 0 else { return nil }
        if length > 8 { return classifyLong(bytes, start, end) }
        var word: UInt64 = 0
        if start + 8 <= bytes.count, let base = bytes.baseAddress {
            word = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self)
            word &= length == 8 ? ~0 : (1 << UInt64(length * 8)) &- 1
        } else {
            var index = length - 1
            while index >= 0 {
                word = word << 8 | UInt64(bytes[start + index])
                index -= 1
            }
        }
        switch length {
        case 3:
            if word == 0x726176 { return .var }
            if word == 0x74656C { return .let }
        case 4:
            if word == 0x636E7566 { return .func }
            if word == 0x65736163 { return .case }
            if word == 0x6D756E65 { return .enum }
            if word == 0x74696E69 { return .`init` }
            if word == 0x6E65706F { return .open }
        case 5:
            if word == 0x7373616C63 { return .class }
            if word == 0x726F746361 { return .actor }
            if word == 0x6F7263616D { return .macro }
        case 6:
            if word == 0x746375727473 { return .struct }
            if word == 0x74726F706D69 { return .import }
            if word == 0x63696C627570 { return .public }
            if word == 0x74696E696564 { return .deinit }
        case 7:
            if word == 0x65746176697270 { return .private }
            if word == 0x6567616B636170 { return .package }
        case 8:
            if word == 0x6C6F636F746F7270 { return .protocol }
            if word == 0x726F74617265706F { return .operator }
            if word == 0x6C616E7265746E69 { return .internal }
        default:
            break
        }
        return nil
    }

    /// Bit `n` set when a keyword starts with the `n`th letter: a c d e f i l m o p s t v (a literal, so
    /// reading it costs no lazy initialisation).
    private static let keywordInitials: UInt32 = 0x2CD93D

    /// Keywords longer than eight bytes (rare lengths, compared byte by byte).
    private static func classifyLong(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Keyword? {
        // Most long identifiers have other lengths: no look-ahead cursor is made for them.
        let length = end - start
        guard length == 9 || length == 11 || length == 14 || length == 15 else { return nil }
        let lexer = Lexer(bytes: bytes, position: start)
        switch length {
        case 9:
            if lexer.bytesEqual(start, end, "extension") { return .extension }
            if lexer.bytesEqual(start, end, "subscript") { return .subscript }
            if lexer.bytesEqual(start, end, "typealias") { return .typealias }
        case 11:
            if lexer.bytesEqual(start, end, "fileprivate") { return .fileprivate }
        case 14:
            if lexer.bytesEqual(start, end, "associatedtype") { return .associatedtype }
        case 15:
            if lexer.bytesEqual(start, end, "precedencegroup") { return .precedencegroup }
        default:
            break
        }
        return nil
    }

    /// Keywords after which an expression (and so a bare regex literal) may start.
    static func allowsExpressionAfter(_ lexer: Lexer, _ start: Int, _ end: Int) -> Bool {
        switch end - start {
        case 2:
            return lexer.bytesEqual(start, end, "in") || lexer.bytesEqual(start, end, "if")
                || lexer.bytesEqual(start, end, "do") || lexer.bytesEqual(start, end, "is")
                || lexer.bytesEqual(start, end, "as")
        case 3:
            return lexer.bytesEqual(start, end, "try")
        case 4:
            return lexer.bytesEqual(start, end, "case") || lexer.bytesEqual(start, end, "else")
                || lexer.bytesEqual(start, end, "then")
        case 5:
            return lexer.bytesEqual(start, end, "where") || lexer.bytesEqual(start, end, "guard")
                || lexer.bytesEqual(start, end, "while") || lexer.bytesEqual(start, end, "await")
                || lexer.bytesEqual(start, end, "throw") || lexer.bytesEqual(start, end, "yield")
        case 6:
            return lexer.bytesEqual(start, end, "return") || lexer.bytesEqual(start, end, "switch")
                || lexer.bytesEqual(start, end, "repeat")
        default:
            return false
        }
    }

    /// Declaration modifiers that may stand between attributes and the introducer (`func`, `var`, …).
    static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "package", "open", "static", "class", "final",
        "override", "nonisolated", "mutating", "nonmutating", "dynamic", "optional", "required",
        "convenience", "lazy", "weak", "unowned", "indirect", "distributed", "consuming", "borrowing",
        "__consuming", "prefix", "postfix", "infix",
    ]

    /// Words that introduce a declaration: after `@handler` the scanner expects `func`.
    static let introducers: Set<String> = [
        "func", "var", "let", "init", "deinit", "subscript", "struct", "class", "enum", "actor", "protocol",
        "extension", "typealias", "associatedtype", "case", "import", "operator", "precedencegroup", "macro",
    ]
}
