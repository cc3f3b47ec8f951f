/// Spelling helpers for the Swift text the generator writes.
enum SwiftSource {
    /// Keywords that must be backticked to be used as an identifier.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self",
        "super", "throws", "true", "try", "_",
    ]

    /// `name` usable as an identifier: backticked when it is a keyword.
    static func identifier(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// `text` escaped for the inside of a one-line Swift string literal.
    static func stringLiteralContent(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\0": result += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// A module name in lower camel case: `Chat` → `chat`, `HandlerKitDemo` → `handlerKitDemo`,
    /// `URLTools` → `urlTools`, `SQL` → `sql`.
    static func lowerCamelCase(_ name: String) -> String {
        let characters = Array(name)
        var upperPrefix = 0
        while upperPrefix < characters.count, characters[upperPrefix].isUppercase {
            upperPrefix += 1
        }
        if upperPrefix == 0 { return name }
        // In `URLTools` the `T` starts the next word and stays upper case.
        let lowered =
            upperPrefix > 1 && upperPrefix < characters.count && characters[upperPrefix].isLetter
            ? upperPrefix - 1 : upperPrefix
        return String(characters[..<lowered]).lowercased() + String(characters[lowered...])
    }

    /// `true` when `name` is a plain Swift identifier (ASCII letters, digits and `_`, not starting with a
    /// digit), the shape module names have.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "_"
        }
    }
}
