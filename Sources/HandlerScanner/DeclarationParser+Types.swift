extension DeclarationParser {
    // MARK: Skipping

    /// Skips a balanced `( … )`, `[ … ]` or `{ … }` group starting at the next token.
    mutating func skipBalanced() {
        var depth = 0
        repeat {
            let token = take()
            switch token.kind {
            case .leftParen, .leftBracket, .leftBrace: depth += 1
            case .rightParen, .rightBracket, .rightBrace: depth -= 1
            case .endOfFile: return
            default: break
            }
        } while depth > 0
    }

    /// How much an operator token changes the `<…>` depth (`->` does not count).
    func angleDelta(_ token: Token) -> Int {
        guard token.kind == .op else { return 0 }
        var delta = 0
        var index = token.start
        while index < token.end {
            let byte = lexer.bytes[index]
            if byte == UInt8(ascii: "<") {
                delta += 1
            } else if byte == UInt8(ascii: ">"), !(index > token.start && lexer.bytes[index - 1] == UInt8(ascii: "-")) {
                delta -= 1
            }
            index += 1
        }
        return delta
    }

    /// Skips a generic clause `< … >`, which may close with `>>` or `>>>` when generics nest.
    mutating func skipAngleBrackets() {
        var depth = 0
        var nesting = 0
        repeat {
            let token = take()
            switch token.kind {
            case .leftParen, .leftBracket, .leftBrace: nesting += 1
            case .rightParen, .rightBracket, .rightBrace: nesting -= 1
            case .endOfFile: return
            case .op where nesting == 0: depth += angleDelta(token)
            default: break
            }
        } while depth > 0
    }

    // MARK: Types

    /// The type as written with all whitespace (and comments) removed, as `handlergen scan` reports it:
    /// `[String : Int]?` → `[String:Int]?`, `any P` → `anyP`, `@escaping () -> Void` → `@escaping()->Void`.
    /// Consumers that emit Swift put the spaces back where words meet (the generator's `SwiftType`).
    func joinType(_ tokens: [Token]) -> String {
        var bytes: [UInt8] = []
        for token in tokens { bytes.append(contentsOf: lexer.bytes[token.start..<token.end]) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `T?`, `T!`, `Optional<T>` (also `Swift.Optional<T>`), but not a function type returning one.
    func isOptionalType(_ tokens: [Token]) -> Bool {
        var depth = 0
        for token in tokens {
            switch token.kind {
            case .leftParen, .leftBracket: depth += 1
            case .rightParen, .rightBracket: depth -= 1
            case .op where depth == 0:
                if lexer.token(token, is: "->") || lexer.bytes[token.start..<token.end].contains(UInt8(ascii: "-")) {
                    return false
                }
            default: break
            }
        }
        guard let last = tokens.last else { return false }
        if last.kind == .op {
            let byte = lexer.bytes[last.end - 1]
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "!") { return true }
        }
        var index = 0
        if tokens.count > 2, isIdentifier(tokens[0], "Swift"), tokens[1].kind == .dot { index = 2 }
        guard index + 1 < tokens.count, isIdentifier(tokens[index], "Optional"), tokens[index + 1].kind == .op,
            lexer.bytes[tokens[index + 1].start] == UInt8(ascii: "<"), last.kind == .op,
            lexer.bytes[last.end - 1] == UInt8(ascii: ">")
        else { return false }
        // The `<` after `Optional` must close at the very end.
        var angles = 0
        for (position, token) in tokens.enumerated() where position > index {
            angles += angleDelta(token)
            if angles <= 0 { return position == tokens.count - 1 }
        }
        return false
    }
}
