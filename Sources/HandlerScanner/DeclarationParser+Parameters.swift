extension DeclarationParser {
    // MARK: Parameters

    mutating func parseParameters(functionName: String) -> [HandlerDeclaration.Parameter] {
        var parameters: [HandlerDeclaration.Parameter] = []
        if peek().kind == .rightParen {
            take()
            return parameters
        }
        while true {
            let parameterStart = peek().start
            // Names, up to the colon.
            var names: [Token] = []
            while true {
                let token = peek()
                if token.kind == .colon || token.kind == .comma || token.kind == .rightParen
                    || token.kind == .endOfFile
                {
                    break
                }
                names.append(take())
            }
            let hasColon = peek().kind == .colon
            if hasColon { take() }
            // Type, up to `=`, `,` or `)` at depth 0.
            var typeTokens: [Token] = []
            var depth = 0
            var angles = 0
            while true {
                let token = peek()
                if token.kind == .endOfFile { break }
                if depth == 0, angles <= 0 {
                    if token.kind == .comma || token.kind == .rightParen || isOperator(token, "=") { break }
                }
                switch token.kind {
                case .leftParen, .leftBracket, .leftBrace: depth += 1
                case .rightParen, .rightBracket, .rightBrace: depth -= 1
                case .op where depth == 0: angles += angleDelta(token)
                default: break
                }
                typeTokens.append(take())
            }
            // Default value, up to `,` or `)` at depth 0.
            var defaultTokens: [Token] = []
            var hasDefault = false
            if isOperator(peek(), "=") {
                take()
                hasDefault = true
                defaultTokens = collectDefaultValue()
            }

            if names.isEmpty || names.count > 2 || !hasColon || typeTokens.isEmpty
                || !names.allSatisfy({ $0.kind == .identifier })
            {
                error(at: parameterStart, Diagnostics.malformedParameter(functionName))
            } else {
                let label = name(of: names[0])
                let internalName = name(of: names[names.count - 1])
                checkParameterType(typeTokens, functionName: functionName, parameter: internalName)
                var defaultValue: String?
                if let first = defaultTokens.first, let last = defaultTokens.last {
                    defaultValue = lexer.text(from: first.start, to: last.end)
                }
                let line = lines.position(of: names[names.count - 1].start).line
                parameters.append(
                    HandlerDeclaration.Parameter(
                        label: label, name: internalName, type: joinType(typeTokens),
                        isOptional: isOptionalType(typeTokens), hasDefault: hasDefault,
                        defaultValue: defaultValue, line: line))
            }

            let separator = take()
            switch separator.kind {
            case .comma:
                continue
            case .rightParen:
                return parameters
            default:
                error(at: separator.start, Diagnostics.unterminatedParameterList(functionName))
                return parameters
            }
        }
    }

    mutating func checkParameterType(_ tokens: [Token], functionName: String, parameter: String) {
        var depth = 0
        for token in tokens {
            switch token.kind {
            case .leftParen, .leftBracket, .leftBrace: depth += 1
            case .rightParen, .rightBracket, .rightBrace: depth -= 1
            case .identifier where depth == 0 && lexer.token(token, is: "inout"):
                error(at: token.start, Diagnostics.inoutParameter(functionName, parameter))
            case .identifier where depth == 0 && (lexer.token(token, is: "some") || lexer.token(token, is: "each")):
                // `some P` in a parameter is an implicit generic parameter.
                error(at: token.start, Diagnostics.opaqueParameter(functionName, parameter, text(token)))
            default: break
            }
        }
        if let last = tokens.last, last.kind == .op, last.end - last.start >= 3,
            lexer.bytesEqual(last.end - 3, last.end, "...")
        {
            error(at: last.end - 3, Diagnostics.variadicParameter(functionName, parameter))
        }
    }

    /// The default value's tokens. A `<` glued to a name that reads as a generic argument list
    /// (`Dictionary<String, Int>()`) keeps its commas.
    mutating func collectDefaultValue() -> [Token] {
        var tokens: [Token] = []
        var depth = 0
        var genericEnd = -1
        while true {
            let token = peek()
            if token.kind == .endOfFile { break }
            if depth == 0, token.start >= genericEnd, token.kind == .comma || token.kind == .rightParen { break }
            switch token.kind {
            case .leftParen, .leftBracket, .leftBrace: depth += 1
            case .rightParen, .rightBracket, .rightBrace: depth -= 1
            case .op:
                if token.start >= genericEnd, let previous = tokens.last, previous.kind == .identifier,
                    previous.end == token.start, lexer.bytes[token.start] == UInt8(ascii: "<"),
                    let end = genericArgumentListEnd()
                {
                    genericEnd = end
                }
            default: break
            }
            tokens.append(take())
        }
        return tokens
    }

    /// If the next token opens a generic argument list (`<` … `>` followed by `(`, `.`, `)`, `,`, `]`
    /// or the end of the value), the offset where it ends.
    mutating func genericArgumentListEnd() -> Int? {
        var copy = lexer
        var token = peek()
        var depth = 0
        var nesting = 0
        var steps = 0
        while steps < 64 {
            steps += 1
            switch token.kind {
            case .identifier, .dot, .comma, .colon:
                break
            case .leftParen, .leftBracket: nesting += 1
            case .rightParen, .rightBracket:
                nesting -= 1
                if nesting < 0 { return nil }
            case .op:
                let value = lexer.text(token)
                guard value.allSatisfy({ "<>?!&".contains($0) }) || value == "->" || value == "..." else { return nil }
                depth += angleDelta(token)
                if depth <= 0 {
                    let end = token.end
                    let following = copy.next()
                    switch following.kind {
                    case .leftParen, .dot, .rightParen, .comma, .rightBracket, .endOfFile: return end
                    default: return nil
                    }
                }
            default:
                return nil
            }
            token = copy.next()
        }
        return nil
    }

    /// The return type's tokens, up to the body `{`, a `where` clause, or the next declaration.
    mutating func collectReturnType() -> [Token] {
        var tokens: [Token] = []
        var depth = 0
        var angles = 0
        while true {
            let token = peek()
            if token.kind == .endOfFile { break }
            if depth == 0, angles <= 0 {
                switch token.kind {
                case .leftBrace, .rightBrace, .semicolon, .at, .pound: return tokens
                case .identifier where lexer.token(token, is: "where"): return tokens
                default: break
                }
                if token.newlineBefore, let last = tokens.last, !continuesType(last), !startsContinuation(token) {
                    return tokens
                }
            }
            switch token.kind {
            case .leftParen, .leftBracket: depth += 1
            case .rightParen, .rightBracket: depth -= 1
            case .op where depth == 0: angles += angleDelta(token)
            default: break
            }
            tokens.append(take())
        }
        return tokens
    }

    func continuesType(_ token: Token) -> Bool {
        switch token.kind {
        case .dot, .comma, .colon, .leftParen, .leftBracket, .at: return true
        case .op:
            return
                !(lexer.bytes[token.end - 1] == UInt8(ascii: "?") || lexer.bytes[token.end - 1] == UInt8(ascii: "!")
                || lexer.bytes[token.end - 1] == UInt8(ascii: ">"))
        case .identifier: return lexer.token(token, is: "some") || lexer.token(token, is: "any")
        default: return false
        }
    }

    func startsContinuation(_ token: Token) -> Bool {
        switch token.kind {
        case .dot, .rightParen, .rightBracket, .comma: return true
        case .op: return lexer.bytes[token.start] != UInt8(ascii: "<")
        default: return false
        }
    }
}
