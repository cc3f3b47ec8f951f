/// Where a `@handler` sits, as the file scanner (or the compiler plugin) determined it.
struct HandlerSite {
    var context: DeclarationContext
    /// Whether an enclosing type or extension is `private` or `fileprivate`.
    var inPrivateScope: Bool
    /// Whether an enclosing type declaration has generic parameters (`struct Box<T>`).
    var inGenericType = false
    var conditions: [HandlerDeclaration.Condition]
    /// The most the enclosing declarations let a member be seen (`public` at file scope).
    var accessCap = HandlerDeclaration.AccessLevel.public
    /// A member's access level without a modifier: the extension's modifier, else `internal`.
    var memberAccess = HandlerDeclaration.AccessLevel.internal
    /// The global actor attribute of the enclosing type or extension, if any.
    var scopeGlobalActor: String?
    /// A global actor attribute written before `@handler` (`@MainActor @handler static func …`).
    var attributeGlobalActor: String?
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
    var lexer: Lexer
    var lookahead: Token?
    let lines: LineTable
    let file: String
    var diagnostics: [ScanDiagnostic] = []
    var hasError = false

    /// - Parameter lexer: positioned just after the `handler` identifier of the attribute.
    init(lexer: Lexer, lines: LineTable, file: String) {
        self.lexer = lexer
        self.lines = lines
        self.file = file
    }

    // MARK: Token access

    mutating func peek() -> Token {
        if let token = lookahead { return token }
        let token = lexer.next()
        lookahead = token
        return token
    }

    /// The token after the next one.
    mutating func peekSecond() -> Token {
        _ = peek()
        var copy = lexer
        return copy.next()
    }

    @discardableResult
    mutating func take() -> Token {
        let token = peek()
        lookahead = nil
        return token
    }

    func text(_ token: Token) -> String { lexer.text(token) }

    func isIdentifier(_ token: Token, _ word: StaticString) -> Bool {
        token.kind == .identifier && lexer.token(token, is: word)
    }

    func isOperator(_ token: Token, _ word: StaticString) -> Bool {
        token.kind == .op && lexer.token(token, is: word)
    }

    func name(of token: Token) -> String {
        var value = text(token)
        if token.has(Token.isBackticked), value.count >= 2 {
            value.removeFirst()
            value.removeLast()
        }
        return value
    }

    // MARK: Diagnostics

    mutating func error(at offset: Int, _ message: String, fixIts: [ScanDiagnostic.FixIt] = []) {
        let position = lines.position(of: offset)
        diagnostics.append(
            ScanDiagnostic(
                file: file, line: position.line, column: position.column, severity: .error, message: message,
                fixIts: fixIts))
        hasError = true
    }

    func fixIt(_ message: String, from start: Int, to end: Int, replacement: String) -> ScanDiagnostic.FixIt {
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
        var globalActor = site.attributeGlobalActor
        parseAttributesAndModifiers(into: &modifiers, globalActor: &globalActor)

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
        var parameters = parseParameters(functionName: functionName)
        applyRenames(arguments, to: &parameters, functionName: functionName)

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

        // A handler returns nothing: its result would have no caller to go to.
        if isOperator(peek(), "->") {
            let arrow = take()
            let tokens = collectReturnType()
            if let first = tokens.first, let last = tokens.last {
                if !Self.returnsNothing(joinType(tokens)) {
                    let written = String(decoding: lexer.bytes[first.start..<last.end], as: UTF8.self)
                    error(at: arrow.start, Diagnostics.returnsValue(functionName, type: written))
                }
            } else {
                error(at: arrow.start, Diagnostics.missingReturnType(functionName))
            }
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

        let id: String
        if let explicitID {
            id = explicitID
        } else if let typePath {
            id = typePath.replacingBackticks() + "." + functionName
        } else {
            id = functionName
        }
        let formerIDs = checkFormerIDs(arguments, id: id)
        if hasError {
            return ParsedHandler(declaration: nil, diagnostics: diagnostics, headerEnd: headerEnd)
        }
        let position = lines.position(of: attributeStart)
        // Swift's effective access: the function's modifier (else its extension's default), capped by
        // the enclosing declarations'.
        let written = modifiers.lazy.compactMap { HandlerDeclaration.AccessLevel(modifier: $0.word) }.first
        let access = min(written ?? site.memberAccess, site.accessCap)
        let isNonisolated = modifiers.contains { $0.word == "nonisolated" }
        var declaration = HandlerDeclaration(
            file: file, line: position.line, column: position.column, id: id, hasExplicitID: explicitID != nil,
            type: typePath, name: functionName, kind: kind, instance: instance, isAsync: isAsync,
            isThrows: isThrows, parameters: parameters, conditions: site.conditions,
            access: access,
            globalActor: isNonisolated ? nil : globalActor ?? (kind == .global ? nil : site.scopeGlobalActor))
        declaration.formerIDs = formerIDs
        return ParsedHandler(declaration: declaration, diagnostics: diagnostics, headerEnd: headerEnd)
    }

    /// Whether a return type (whitespace removed) gives the caller no value: `Void`, `()`, `Never`.
    static func returnsNothing(_ type: String) -> Bool {
        ["Void", "()", "Swift.Void", "Never", "Swift.Never"].contains(type)
    }

    /// Whether an attribute name (its last component) is taken for a global actor: `MainActor`, or a
    /// name ending in `Actor` other than `globalActor`. A lexical scanner cannot look the type up.
    static func isGlobalActor(_ name: String) -> Bool {
        name == "MainActor" || (name.hasSuffix("Actor") && name != "globalActor" && name.count > 5)
    }

    func spacesAfter(_ offset: Int) -> Int {
        var index = offset
        while index < lexer.bytes.count, lexer.bytes[index] == 0x20 || lexer.bytes[index] == 0x09 { index += 1 }
        return index - offset
    }
}
