extension DeclarationParser {
    // MARK: Attribute arguments

    mutating func parseAttributeArguments() -> AttributeArguments {
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

    mutating func validate(_ argument: inout AttributeArgument, valueTokens: [Token], existing: [AttributeArgument]) {
        let continuesFormerly = argument.label == nil && existing.last?.label == "formerly"
        if continuesFormerly { argument.label = "formerly" }  // `formerly:` is variadic
        guard let label = argument.label else {
            error(at: argument.valueStart, Diagnostics.unlabeledArgument)
            return
        }
        guard Diagnostics.argumentLabels.contains(label) else {
            error(at: argument.labelStart, Diagnostics.unknownArgument(label))
            return
        }
        if !continuesFormerly, existing.contains(where: { $0.label == label }) {
            error(at: argument.labelStart, Diagnostics.duplicateArgument(label))
            return
        }
        if label == "renamed" {
            argument.renames = parseRenames(valueTokens, at: argument.valueStart)
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

    func insertInstanceFixIt(arguments: AttributeArguments, handlerEnd: Int) -> ScanDiagnostic.FixIt {
        let placeholder = "instance: \"\(Diagnostics.instancePlaceholder)\""
        guard let openParen = arguments.openParen, let closeParen = arguments.closeParen else {
            return fixIt("add 'instance:'", from: handlerEnd, to: handlerEnd, replacement: "(\(placeholder))")
        }
        if arguments.arguments.isEmpty {
            return fixIt("add 'instance:'", from: openParen + 1, to: openParen + 1, replacement: placeholder)
        }
        return fixIt("add 'instance:'", from: closeParen, to: closeParen, replacement: ", \(placeholder)")
    }

    func removalFixIt(for argument: AttributeArgument, in arguments: AttributeArguments) -> ScanDiagnostic.FixIt {
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

    /// Skips attributes, noting a global actor one in `globalActor`, and collects the modifiers.
    mutating func parseAttributesAndModifiers(
        into modifiers: inout [(word: String, token: Token)], globalActor: inout String?
    ) {
        while true {
            let token = peek()
            if token.kind == .at {
                take()
                let attributeName = peek()
                guard attributeName.kind == .identifier else { continue }
                take()
                var name = text(attributeName)
                var last = name
                while peek().kind == .dot, peekSecond().kind == .identifier {
                    take()
                    last = text(take())
                    name += "." + last
                }
                if Self.isGlobalActor(last) { globalActor = name }
                if peek().kind == .leftParen, !peek().newlineBefore { skipBalanced() }
                continue
            }
            guard token.kind == .identifier else { return }
            let word = text(token)
            if word == "class" {
                // `class func` is a modifier; `class Name` declares a class.
                let following = peekSecond()
                let followingWord = following.kind == .identifier ? lexer.text(following) : ""
                guard
                    following.kind == .at || Keywords.modifiers.contains(followingWord)
                        || Keywords.introducers.contains(followingWord)
                else { return }
            } else if !Keywords.modifiers.contains(word) {
                return
            }
            take()
            modifiers.append((word, token))
            // A modifier's argument: `private(set)`, `nonisolated(unsafe)`.
            if peek().kind == .leftParen, !peek().newlineBefore { skipBalanced() }
        }
    }
}
