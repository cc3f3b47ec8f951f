/// Where a `@handler` sits, as the file scanner (or the compiler plugin) determined it.
struct HandlerSite {
    var context: DeclarationContext
    /// Whether an enclosing type or extension is `private` or `fileprivate`.
    var inPrivateScope: Bool
    /// Whether an enclosing type declaration has generic parameters (`struct Box<T>`).
    var inGenericType = false
    var conditions: [HandlerDeclaration.Condition]
}

/// What parsing one `@handler` declaration produced.
struct ParsedHandler {
    /// The handler, or `nil` when the declaration has an error.
    var declaration: HandlerDeclaration?
    var diagnostics: [ScanDiagnostic]
    /// Byte offset where the declaration's header ends (its body or the next token); other `@handler`
    /// tokens before it belong to this declaration.
    var headerEnd: Int
}

/// Parses the declaration a `@handler` attribute is attached to: the attribute's arguments, other
/// attributes and modifiers, `func`, name, generic clause, parameters, effects, return type and `where`.
struct DeclarationParser {
    private var lexer: Lexer
    private var lookahead: Token?
    private let lines: LineTable
    private let file: String
    private var diagnostics: [ScanDiagnostic] = []
    private var hasError = false

    /// - Parameter lexer: positioned just after the `handler` identifier of the attribute.
    init(lexer: Lexer, lines: LineTable, file: String) {
        self.lexer = lexer
        self.lines = lines
        self.file = file
    }

    // MARK: Token access

    private mutating func peek() -> Token {
        if let token = lookahead { return token }
        let token = lexer.next()
        lookahead = token
        return token
    }

    /// The token after the next one.
    private mutating func peekSecond() -> Token {
        _ = peek()
        var copy = lexer
        return copy.next()
    }

    @discardableResult
    private mutating func take() -> Token {
        let token = peek()
        lookahead = nil
        return token
    }

    private func text(_ token: Token) -> String { lexer.text(token) }

    private func isIdentifier(_ token: Token, _ word: StaticString) -> Bool {
        token.kind == .identifier && lexer.token(token, is: word)
    }

    private func isOperator(_ token: Token, _ word: StaticString) -> Bool {
        token.kind == .op && lexer.token(token, is: word)
    }

    private func name(of token: Token) -> String {
        var value = text(token)
        if token.has(Token.isBackticked), value.count >= 2 {
            value.removeFirst()
            value.removeLast()
        }
        return value
    }

    // MARK: Diagnostics

    private mutating func error(at offset: Int, _ message: String, fixIts: [ScanDiagnostic.FixIt] = []) {
        let position = lines.position(of: offset)
        diagnostics.append(
            ScanDiagnostic(
                file: file, line: position.line, column: position.column, severity: .error, message: message,
                fixIts: fixIts))
        hasError = true
    }

    private func fixIt(_ message: String, from start: Int, to end: Int, replacement: String) -> ScanDiagnostic.FixIt {
        let position = lines.position(of: start)
        return ScanDiagnostic.FixIt(
            message: message, line: position.line, column: position.column, length: end - start,
            replacement: replacement)
    }

    // MARK: Parsing

    /// Parses the declaration. `attributeStart` is the offset of the `@`, `handlerEnd` the end of the
    /// attribute name (where an argument list would be inserted).
    mutating func parse(attributeStart: Int, handlerEnd: Int, site: HandlerSite) -> ParsedHandler {
        let arguments = parseAttributeArguments()
        if arguments.isUnclosed {
            return ParsedHandler(declaration: nil, diagnostics: diagnostics, headerEnd: peek().start)
        }
        var modifiers: [(word: String, token: Token)] = []
        parseAttributesAndModifiers(into: &modifiers)

        let introducer = peek()
        guard isIdentifier(introducer, "func") else {
            var what: String?
            if introducer.kind == .identifier, Keywords.introducers.contains(text(introducer)) {
                what = text(introducer)
            }
            error(at: attributeStart, Diagnostics.notAFunction(what))
            return ParsedHandler(declaration: nil, diagnostics: diagnostics, headerEnd: introducer.start)
        }
        take()

        let nameToken = take()
        let functionName: String
        switch nameToken.kind {
        case .identifier:
            functionName = name(of: nameToken)
        case .op:
            error(at: nameToken.start, Diagnostics.operatorFunction(text(nameToken)))
            functionName = text(nameToken)
        default:
            error(at: nameToken.start, Diagnostics.missingName())
            return ParsedHandler(declaration: nil, diagnostics: diagnostics, headerEnd: nameToken.start)
        }

        // Generic parameter clause `<…>` (may close with `>>` when nested).
        let afterName = peek()
        if afterName.kind == .op, lexer.bytes[afterName.start] == UInt8(ascii: "<") {
            error(at: afterName.start, Diagnostics.genericHandler(functionName))
            skipAngleBrackets()
        }

        let open = peek()
        guard open.kind == .leftParen else {
            error(at: open.start, Diagnostics.missingParameterList(functionName))
            return ParsedHandler(declaration: nil, diagnostics: diagnostics, headerEnd: open.start)
        }
        take()
        let parameters = parseParameters(functionName: functionName)

        // Effects.
        var isAsync = false
        var isThrows = false
        while true {
            let token = peek()
            guard token.kind == .identifier else { break }
            if lexer.token(token, is: "async") || lexer.token(token, is: "reasync") {
                isAsync = true
            } else if lexer.token(token, is: "throws") || lexer.token(token, is: "rethrows") {
                isThrows = true
                take()
                if peek().kind == .leftParen { skipBalanced() }  // typed throws: `throws(E)`
                continue
            } else {
                break
            }
            take()
        }

        var returnType: String?
        if isOperator(peek(), "->") {
            let arrow = take()
            let tokens = collectReturnType()
            if tokens.isEmpty { error(at: arrow.start, Diagnostics.missingReturnType(functionName)) }
            let written = joinType(tokens)
            returnType = (written.isEmpty || written == "Void" || written == "()") ? nil : written
        }

        let afterSignature = peek()
        if isIdentifier(afterSignature, "where") {
            error(at: afterSignature.start, Diagnostics.whereClause(functionName))
        }
        let headerEnd = afterSignature.start

        // Argument values.
        let explicitID = arguments.value(of: "id")
        let instance = arguments.value(of: "instance")

        // Where the function sits.
        let isStatic = modifiers.contains { $0.word == "static" || $0.word == "class" }
        var kind = HandlerDeclaration.Kind.global
        var typePath: String?
        switch site.context {
        case .local:
            error(at: attributeStart, Diagnostics.localFunction(functionName))
        case .type(let path, let isProtocol):
            typePath = path
            if isProtocol {
                error(at: attributeStart, Diagnostics.protocolRequirement(functionName, path))
            } else if isStatic {
                kind = .static
                if let argument = arguments.argument(labeled: "instance"),
                    let modifier = modifiers.first(where: { $0.word == "static" || $0.word == "class" })
                {
                    error(
                        at: argument.labelStart, Diagnostics.staticWithInstance(functionName, modifier.word),
                        fixIts: [removalFixIt(for: argument, in: arguments)])
                }
            } else {
                kind = .instance
                if arguments.argument(labeled: "instance") == nil {
                    error(
                        at: attributeStart, Diagnostics.missingInstance(functionName),
                        fixIts: [insertInstanceFixIt(arguments: arguments, handlerEnd: handlerEnd)])
                }
            }
        case .fileScope:
            if let argument = arguments.argument(labeled: "instance") {
                error(
                    at: argument.labelStart, Diagnostics.instanceOnGlobal(functionName),
                    fixIts: [removalFixIt(for: argument, in: arguments)])
            }
        }
        for modifier in modifiers where modifier.word == "private" || modifier.word == "fileprivate" {
            let end = modifier.token.end + spacesAfter(modifier.token.end)
            error(
                at: modifier.token.start, Diagnostics.privateHandler(functionName, modifier.word),
                fixIts: [fixIt("remove '\(modifier.word)'", from: modifier.token.start, to: end, replacement: "")])
        }
        if site.inPrivateScope {
            error(at: attributeStart, Diagnostics.privateEnclosingType(functionName))
        }
        if site.inGenericType, let typePath {
            error(at: attributeStart, Diagnostics.genericEnclosingType(functionName, typePath))
        }

        if hasError {
            return ParsedHandler(declaration: nil, diagnostics: diagnostics, headerEnd: headerEnd)
        }
        let position = lines.position(of: attributeStart)
        let id: String
        if let explicitID {
            id = explicitID
        } else if let typePath {
            id = typePath.replacingBackticks() + "." + functionName
        } else {
            id = functionName
        }
        let declaration = HandlerDeclaration(
            file: file, line: position.line, column: position.column, id: id, hasExplicitID: explicitID != nil,
            type: typePath, name: functionName, kind: kind, instance: instance, isAsync: isAsync,
            isThrows: isThrows, returnType: returnType, parameters: parameters, conditions: site.conditions)
        return ParsedHandler(declaration: declaration, diagnostics: diagnostics, headerEnd: headerEnd)
    }

    private func spacesAfter(_ offset: Int) -> Int {
        var index = offset
        while index < lexer.bytes.count, lexer.bytes[index] == 0x20 || lexer.bytes[index] == 0x09 { index += 1 }
        return index - offset
    }

    // MARK: Attribute arguments

    private mutating func parseAttributeArguments() -> AttributeArguments {
        var result = AttributeArguments()
        let open = peek()
        guard open.kind == .leftParen, !open.newlineBefore else { return result }
        take()
        result.openParen = open.start
        if peek().kind == .rightParen {
            result.closeParen = take().start
            return result
        }
        while true {
            let first = peek()
            var argument = AttributeArgument(labelStart: first.start, valueStart: first.start, valueEnd: first.start)
            if first.kind == .identifier, peekSecond().kind == .colon {
                argument.label = name(of: first)
                take()
                take()
                argument.valueStart = peek().start
            }
            var depth = 0
            var valueTokens: [Token] = []
            while true {
                let token = peek()
                if token.kind == .endOfFile {
                    error(at: open.start, Diagnostics.missingClosingParenthesis)
                    result.isUnclosed = true
                    return result
                }
                if depth == 0, token.kind == .comma || token.kind == .rightParen { break }
                switch token.kind {
                case .leftParen, .leftBracket, .leftBrace: depth += 1
                case .rightParen, .rightBracket, .rightBrace: depth -= 1
                default: break
                }
                valueTokens.append(take())
            }
            argument.valueEnd = valueTokens.last?.end ?? argument.valueStart
            validate(&argument, valueTokens: valueTokens, existing: result.arguments)
            result.arguments.append(argument)
            let separator = take()
            if separator.kind == .rightParen {
                result.closeParen = separator.start
                return result
            }
        }
    }

    private mutating func validate(_ argument: inout AttributeArgument, valueTokens: [Token], existing: [AttributeArgument]) {
        guard let label = argument.label else {
            error(at: argument.valueStart, Diagnostics.unlabeledArgument)
            return
        }
        guard label == "id" || label == "instance" else {
            error(at: argument.labelStart, Diagnostics.unknownArgument(label))
            return
        }
        if existing.contains(where: { $0.label == label }) {
            error(at: argument.labelStart, Diagnostics.duplicateArgument(label))
            return
        }
        guard valueTokens.count == 1, let literal = valueTokens.first, literal.kind == .string,
            !literal.has(Token.hasInterpolation), !literal.has(Token.isUnterminated),
            let value = StringLiteralDecoder.decode(Array(lexer.bytes[literal.start..<literal.end]))
        else {
            error(at: argument.valueStart, Diagnostics.notPlainString(label))
            return
        }
        if value.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\n" }) {
            error(at: argument.valueStart, Diagnostics.emptyArgument(label))
            return
        }
        argument.value = value
    }

    private func insertInstanceFixIt(arguments: AttributeArguments, handlerEnd: Int) -> ScanDiagnostic.FixIt {
        let placeholder = "instance: \"\(Diagnostics.instancePlaceholder)\""
        guard let openParen = arguments.openParen, let closeParen = arguments.closeParen else {
            return fixIt("add 'instance:'", from: handlerEnd, to: handlerEnd, replacement: "(\(placeholder))")
        }
        if arguments.arguments.isEmpty {
            return fixIt("add 'instance:'", from: openParen + 1, to: openParen + 1, replacement: placeholder)
        }
        return fixIt("add 'instance:'", from: closeParen, to: closeParen, replacement: ", \(placeholder)")
    }

    private func removalFixIt(for argument: AttributeArgument, in arguments: AttributeArguments) -> ScanDiagnostic.FixIt {
        let all = arguments.arguments
        let message = "remove 'instance:'"
        guard let index = all.firstIndex(where: { $0.labelStart == argument.labelStart }) else {
            return fixIt(message, from: argument.labelStart, to: argument.valueEnd, replacement: "")
        }
        if all.count == 1, let openParen = arguments.openParen, let closeParen = arguments.closeParen {
            return fixIt(message, from: openParen, to: closeParen + 1, replacement: "")
        }
        if index + 1 < all.count {
            return fixIt(message, from: argument.labelStart, to: all[index + 1].labelStart, replacement: "")
        }
        return fixIt(message, from: all[index - 1].valueEnd, to: argument.valueEnd, replacement: "")
    }

    // MARK: Attributes and modifiers

    private mutating func parseAttributesAndModifiers(into modifiers: inout [(word: String, token: Token)]) {
        while true {
            let token = peek()
            if token.kind == .at {
                take()
                let attributeName = peek()
                guard attributeName.kind == .identifier else { continue }
                take()
                while peek().kind == .dot, peekSecond().kind == .identifier {
                    take()
                    take()
                }
                if peek().kind == .leftParen, !peek().newlineBefore { skipBalanced() }
                continue
            }
            guard token.kind == .identifier else { return }
            let word = text(token)
            if word == "class" {
                // `class func` is a modifier; `class Name` declares a class.
                let following = peekSecond()
                let followingWord = following.kind == .identifier ? lexer.text(following) : ""
                guard following.kind == .at || Keywords.modifiers.contains(followingWord)
                    || Keywords.introducers.contains(followingWord)
                else { return }
            } else if !Keywords.modifiers.contains(word) {
                return
            }
            take()
            modifiers.append((word, token))
            if peek().kind == .leftParen, !peek().newlineBefore { skipBalanced() }  // `private(set)`, `nonisolated(unsafe)`
        }
    }

    // MARK: Skipping

    /// Skips a balanced `( … )`, `[ … ]` or `{ … }` group starting at the next token.
    private mutating func skipBalanced() {
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
    private func angleDelta(_ token: Token) -> Int {
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
    private mutating func skipAngleBrackets() {
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

    // MARK: Parameters

    private mutating func parseParameters(functionName: String) -> [HandlerDeclaration.Parameter] {
        var parameters: [HandlerDeclaration.Parameter] = []
        if peek().kind == .rightParen {
            take()
            return parameters
        }
        while true {
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
                error(at: names.first?.start ?? peek().start, Diagnostics.malformedParameter(functionName))
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

    private mutating func checkParameterType(_ tokens: [Token], functionName: String, parameter: String) {
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
    private mutating func collectDefaultValue() -> [Token] {
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
    private mutating func genericArgumentListEnd() -> Int? {
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
    private mutating func collectReturnType() -> [Token] {
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

    private func continuesType(_ token: Token) -> Bool {
        switch token.kind {
        case .dot, .comma, .colon, .leftParen, .leftBracket, .at: return true
        case .op: return !(lexer.bytes[token.end - 1] == UInt8(ascii: "?") || lexer.bytes[token.end - 1] == UInt8(ascii: "!")
            || lexer.bytes[token.end - 1] == UInt8(ascii: ">"))
        case .identifier: return lexer.token(token, is: "some") || lexer.token(token, is: "any")
        default: return false
        }
    }

    private func startsContinuation(_ token: Token) -> Bool {
        switch token.kind {
        case .dot, .rightParen, .rightBracket, .comma: return true
        case .op: return lexer.bytes[token.start] != UInt8(ascii: "<")
        default: return false
        }
    }

    // MARK: Types

    /// The type as written, with whitespace and comments removed; one space is kept between two words
    /// that would otherwise merge (`any P`, `some View`, `@escaping @Sendable`).
    private func joinType(_ tokens: [Token]) -> String {
        var bytes: [UInt8] = []
        var previousIsWord = false
        var previousIsAttributeName = false
        var previousIsAt = false
        for token in tokens {
            let isWord = token.kind == .identifier || token.kind == .number
            if previousIsWord, isWord || token.kind == .at {
                bytes.append(0x20)
            } else if previousIsAttributeName, token.kind == .leftParen {
                bytes.append(0x20)  // `@Sendable (Int) -> Void`: `@Sendable(Int)` would be attribute arguments
            }
            bytes.append(contentsOf: lexer.bytes[token.start..<token.end])
            previousIsAttributeName = previousIsAt && isWord
            previousIsAt = token.kind == .at
            previousIsWord = isWord
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `T?`, `T!`, `Optional<T>` (also `Swift.Optional<T>`), but not a function type returning one.
    private func isOptionalType(_ tokens: [Token]) -> Bool {
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

/// One `label: value` argument of `@handler(…)`.
struct AttributeArgument {
    var label: String?
    var labelStart: Int
    var valueStart: Int
    var valueEnd: Int
    /// The resolved string value, when the value is a plain string literal.
    var value: String?
}

/// The argument list of `@handler(…)`, with the positions fix-its need.
struct AttributeArguments {
    var openParen: Int?
    var closeParen: Int?
    var arguments: [AttributeArgument] = []
    /// The list runs to the end of the text without `)`.
    var isUnclosed = false

    func argument(labeled label: String) -> AttributeArgument? {
        arguments.first { $0.label == label }
    }

    func value(of label: String) -> String? {
        argument(labeled: label)?.value
    }
}

extension String {
    /// The text with every backtick removed (`` `Type`.name `` → `Type.name`).
    func replacingBackticks() -> String {
        String(unicodeScalars.filter { $0 != "`" })
    }
}
