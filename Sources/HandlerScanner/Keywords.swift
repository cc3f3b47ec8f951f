/// The keywords the scanner reacts to, recognised by comparing bytes (no `String` is built).
enum Keyword: UInt8 {
    // Declarations that open a type body.
    case `struct`, `class`, `enum`, `actor`, `protocol`, `extension`
    // Other declarations: they end any pending type header.
    case `func`, `var`, `let`, `init`, `subscript`, `case`, `typealias`, `import`, `deinit`,
        `associatedtype`, `operator`, `precedencegroup`, `macro`
    // Access levels that make an enclosing type private.
    case `private`, `fileprivate`
}

enum Keywords {
    /// Classifies an identifier token; `nil` for every identifier the scanner does not care about.
    /// Cheap on the hot path: most identifiers are rejected by length or first byte.
    @inline(__always)
    static func classify(_ lexer: Lexer, _ start: Int, _ end: Int) -> Keyword? {
        let length = end - start
        guard length >= 3, length <= 15 else { return nil }
        switch lexer.bytes[start] {
        case UInt8(ascii: "a"):
            if lexer.bytesEqual(start, end, "actor") { return .actor }
            if lexer.bytesEqual(start, end, "associatedtype") { return .associatedtype }
        case UInt8(ascii: "c"):
            if lexer.bytesEqual(start, end, "class") { return .class }
            if lexer.bytesEqual(start, end, "case") { return .case }
        case UInt8(ascii: "d"):
            if lexer.bytesEqual(start, end, "deinit") { return .deinit }
        case UInt8(ascii: "e"):
            if lexer.bytesEqual(start, end, "enum") { return .enum }
            if lexer.bytesEqual(start, end, "extension") { return .extension }
        case UInt8(ascii: "f"):
            if lexer.bytesEqual(start, end, "func") { return .func }
            if lexer.bytesEqual(start, end, "fileprivate") { return .fileprivate }
        case UInt8(ascii: "i"):
            if lexer.bytesEqual(start, end, "init") { return .`init` }
            if lexer.bytesEqual(start, end, "import") { return .import }
        case UInt8(ascii: "l"):
            if lexer.bytesEqual(start, end, "let") { return .let }
        case UInt8(ascii: "m"):
            if lexer.bytesEqual(start, end, "macro") { return .macro }
        case UInt8(ascii: "o"):
            if lexer.bytesEqual(start, end, "operator") { return .operator }
        case UInt8(ascii: "p"):
            if lexer.bytesEqual(start, end, "protocol") { return .protocol }
            if lexer.bytesEqual(start, end, "private") { return .private }
            if lexer.bytesEqual(start, end, "precedencegroup") { return .precedencegroup }
        case UInt8(ascii: "s"):
            if lexer.bytesEqual(start, end, "struct") { return .struct }
            if lexer.bytesEqual(start, end, "subscript") { return .subscript }
        case UInt8(ascii: "t"):
            if lexer.bytesEqual(start, end, "typealias") { return .typealias }
        case UInt8(ascii: "v"):
            if lexer.bytesEqual(start, end, "var") { return .var }
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
