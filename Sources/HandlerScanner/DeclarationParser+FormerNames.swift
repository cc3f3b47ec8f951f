/// A parameter's former name as `@handler(renamed: ["former": "current"])` declares it.
struct FormerParameterName {
    var former: String
    var current: String
    /// Byte offset of the former name's string literal, where a problem with the pair is reported.
    var offset: Int
}

extension DeclarationParser {
    // MARK: Former names

    /// The pairs of a `renamed:` value: a literal `["former": "current", …]` of plain strings, or `[:]`.
    mutating func parseRenames(_ tokens: [Token], at start: Int) -> [FormerParameterName] {
        guard tokens.count >= 2, tokens.first?.kind == .leftBracket, tokens.last?.kind == .rightBracket else {
            error(at: start, Diagnostics.renamedNotALiteral)
            return []
        }
        let inner = Array(tokens.dropFirst().dropLast())
        if inner.count == 1, inner[0].kind == .colon { return [] }  // `[:]`
        var renames: [FormerParameterName] = []
        var index = 0
        while index < inner.count {
            guard index + 2 < inner.count, inner[index + 1].kind == .colon,
                let former = plainString(inner[index]), let current = plainString(inner[index + 2])
            else {
                error(at: inner[index].start, Diagnostics.renamedNotALiteral)
                return []
            }
            renames.append(FormerParameterName(former: former, current: current, offset: inner[index].start))
            index += 3
            if index < inner.count {
                guard inner[index].kind == .comma else {
                    error(at: inner[index].start, Diagnostics.renamedNotALiteral)
                    return []
                }
                index += 1
            }
        }
        return renames
    }

    /// The value of a string literal token without interpolation, or `nil`.
    private func plainString(_ token: Token) -> String? {
        guard token.kind == .string, !token.has(Token.hasInterpolation), !token.has(Token.isUnterminated) else {
            return nil
        }
        return StringLiteralDecoder.decode(Array(lexer.bytes[token.start..<token.end]))
    }

    /// Checks the `formerly:` ids against the handler's id and each other, reporting each problem.
    mutating func checkFormerIDs(_ arguments: AttributeArguments, id: String) -> [String] {
        var formerIDs: [String] = []
        for argument in arguments.arguments(labeled: "formerly") {
            guard let value = argument.value else { continue }  // already reported
            if value == id {
                error(at: argument.valueStart, Diagnostics.formerIDIsCurrent(id))
            } else if formerIDs.contains(value) {
                error(at: argument.valueStart, Diagnostics.repeatedFormerID(value))
            } else {
                formerIDs.append(value)
            }
        }
        return formerIDs
    }

    /// Adds the `renamed:` former names to `parameters`, reporting pairs that do not fit them.
    mutating func applyRenames(
        _ arguments: AttributeArguments, to parameters: inout [HandlerDeclaration.Parameter], functionName: String
    ) {
        guard let renames = arguments.argument(labeled: "renamed")?.renames else { return }
        var formers: Set<String> = []
        for rename in renames {
            let currentNames = parameters.map(\.name)
            if !formers.insert(rename.former).inserted {
                error(at: rename.offset, Diagnostics.repeatedFormerName(rename.former))
            } else if currentNames.contains(rename.former) {
                error(
                    at: rename.offset,
                    Diagnostics.formerNameIsCurrent(rename.former, functionName, !currentNames.contains(rename.current))
                )
            } else if let index = currentNames.firstIndex(of: rename.current) {
                parameters[index].formerNames.append(rename.former)
            } else {
                error(at: rename.offset, Diagnostics.renamedToUnknown(rename.former, rename.current, functionName))
            }
        }
    }
}
