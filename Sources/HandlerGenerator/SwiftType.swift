/// A parameter type as the scanner reports it (all whitespace removed, e.g. `[String:Int]?`,
/// `@escaping()->Void`, `anyP`), turned back into Swift the generator can write.
struct SwiftType: Equatable {
    /// The type spelled with conventional spacing, e.g. `[String: Int]?`, `@escaping () -> Void`, `any P`.
    let spelled: String

    /// Words that start a type and lose the space after them when whitespace is removed.
    private static let prefixWords = [
        "any", "some", "borrowing", "consuming", "sending", "isolated", "each", "repeat", "__owned", "__shared",
    ]

    init(scanned: String) {
        spelled = Self.respace(scanned)
    }

    private init(spelled: String) {
        self.spelled = spelled
    }

    /// The type without the attributes an optional or a local's type must not carry
    /// (`@escaping`, `@autoclosure`).
    var withoutParameterAttributes: SwiftType {
        var text = Substring(spelled)
        var changed = true
        while changed {
            changed = false
            for attribute in ["@escaping ", "@autoclosure "] where text.hasPrefix(attribute) {
                text = text.dropFirst(attribute.count)
                changed = true
            }
        }
        return SwiftType(spelled: String(text))
    }

    /// For `T?`, `T!` and `Optional<T>`: `T`. Otherwise `nil`.
    var wrapped: SwiftType? {
        let text = withoutParameterAttributes.spelled
        if text.hasSuffix("?") || text.hasSuffix("!") {
            return SwiftType(spelled: String(text.dropLast()))
        }
        if text.hasPrefix("Optional<"), text.hasSuffix(">"), Self.closingIndex(of: text, openingAt: 8) == text.count - 1
        {
            return SwiftType(spelled: String(text.dropFirst(9).dropLast()))
        }
        return nil
    }

    /// The type with a postfix (`?`, `.self`) applied safely: parenthesized when the type is a
    /// function type, a composition or starts with a word such as `any`.
    var postfixOperand: String {
        let text = withoutParameterAttributes.spelled
        if Self.needsParentheses(text) { return "(\(text))" }
        return text
    }

    /// The type of a local holding the parameter's value: `T!` becomes `T?`.
    var localType: String {
        let text = withoutParameterAttributes.spelled
        if text.hasSuffix("!") { return String(text.dropLast()) + "?" }
        return text
    }

    /// The type as an optional for a reference function's parameter: `T` → `T?`, `T?` stays, `T!` → `T?`.
    func optionalType(isOptional: Bool) -> String {
        if isOptional, let wrapped { return wrapped.postfixOperand + "?" }
        return postfixOperand + "?"
    }

    // MARK: - Spelling

    private static func needsParentheses(_ text: String) -> Bool {
        var depth = 0
        var previous: Character = " "
        for character in text {
            switch character {
            case "(", "[", "<": depth += 1
            case ")", "]": depth -= 1
            case ">" where previous != "-": depth -= 1
            case ">" where depth == 0: return true  // `->` at the top level: a function type
            case "&" where depth == 0: return true
            default: break
            }
            previous = character
        }
        if text.hasPrefix("@") { return true }
        return prefixWords.contains { text.hasPrefix($0 + " ") }
    }

    /// The index (in characters) of the `>` that closes the `<` at `openingAt`, or `nil`.
    private static func closingIndex(of text: String, openingAt: Int) -> Int? {
        var depth = 0
        var previous: Character = " "
        for (index, character) in text.enumerated() where index >= openingAt {
            if character == "<" { depth += 1 }
            if character == ">" && previous != "-" {
                depth -= 1
                if depth == 0 { return index }
            }
            previous = character
        }
        return nil
    }

    private static func isIdentifierCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == "`"
    }

    /// Spells a scanned type with conventional spacing. The scanner removes whitespace (keeping at most a
    /// single space where Swift needs one); this puts back what Swift needs — after `any`, `some`, … and
    /// after attributes, between words, `asyncthrows` split — and adds conventional spaces around `->`
    /// and `&` and after `,` and `:`.
    static func respace(_ scanned: String) -> String {
        enum Piece {
            case word(String), attribute(String), punctuation(Character), arrow
        }
        let characters = Array(scanned)
        var pieces: [Piece] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
                continue
            }
            if character == "@" {
                var end = index + 1
                while end < characters.count, isIdentifierCharacter(characters[end]) { end += 1 }
                var name = "@" + String(characters[(index + 1)..<end])
                // `@convention(c)` and `@differentiable(reverse)` keep their argument clause.
                if name == "@convention" || name == "@differentiable", end < characters.count, characters[end] == "(" {
                    var depth = 0
                    while end < characters.count {
                        name.append(characters[end])
                        if characters[end] == "(" { depth += 1 }
                        if characters[end] == ")" {
                            depth -= 1
                            if depth == 0 {
                                end += 1
                                break
                            }
                        }
                        end += 1
                    }
                }
                pieces.append(.attribute(name))
                index = end
                continue
            }
            if isIdentifierCharacter(character) {
                var end = index
                while end < characters.count, isIdentifierCharacter(characters[end]) { end += 1 }
                let next = characters[end...].first { !$0.isWhitespace }
                for word in splitWord(String(characters[index..<end]), followedBy: next) {
                    pieces.append(.word(word))
                }
                index = end
                continue
            }
            if character == "-", index + 1 < characters.count, characters[index + 1] == ">" {
                pieces.append(.arrow)
                index += 2
                continue
            }
            pieces.append(.punctuation(character))
            index += 1
        }

        var output = ""
        var previous: Piece?
        for piece in pieces {
            switch piece {
            case .word(let word):
                switch previous {
                case .word?, .attribute?: output += " "
                case .punctuation(")")?: output += " "  // `() throws`, `() async`
                default: break
                }
                output += word
            case .attribute(let name):
                if case .word? = previous { output += " " }
                if case .attribute? = previous { output += " " }
                output += name
            case .arrow:
                output += " -> "
            case .punctuation(let character):
                if case .attribute? = previous { output += " " }
                if case .word(let word)? = previous, prefixWords.contains(word), character == "(" || character == "[" {
                    output += " "  // `any (P & Q)`
                }
                switch character {
                case ",", ":": output += "\(character) "
                case "&": output += " & "
                default: output.append(character)
                }
            }
            previous = piece
        }
        return output
    }

    /// `anyP` → `any`, `P`; `any` before `(` stays one word; `asyncthrows` → `async`, `throws`.
    private static func splitWord(_ word: String, followedBy next: Character?) -> [String] {
        if word == "asyncthrows" { return ["async", "throws"] }
        for prefix in prefixWords where word.hasPrefix(prefix) && word.count > prefix.count {
            let rest = word.dropFirst(prefix.count)
            if let first = rest.first, first.isUppercase || first == "_" || first == "`" {
                return [prefix, String(rest)]
            }
        }
        return [word]
    }
}
