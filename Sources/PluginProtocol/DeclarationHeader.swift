/// The start of a declaration as needed to place it: its attributes and modifiers skipped, the
/// introducing keyword (`struct`, `extension`, `func`, …) and the name that follows.
///
/// This reads only the first few tokens of the small snippets the compiler sends (an enclosing
/// declaration with its members removed, like `extension OMEMO {}`); the declaration itself is
/// validated by `HandlerScanner`.
struct DeclarationHeader: Equatable {
    /// Modifier words before the keyword, e.g. `["public", "final"]`.
    var modifiers: [String]
    /// The introducing keyword, or `nil` when the snippet does not start like a declaration.
    var keyword: String?
    /// For a type, its name; for an extension, the extended type as written without whitespace
    /// (`Swift.Array`); otherwise the word after the keyword, or empty.
    var name: String

    /// Keywords that introduce a declaration; the header ends at the first one.
    static let declarationKeywords: Set<String> = [
        "struct", "class", "enum", "actor", "protocol", "extension", "func", "init", "deinit", "var",
        "let", "subscript", "typealias", "associatedtype", "case", "macro", "operator",
        "precedencegroup", "import",
    ]

    /// Keywords of declarations that can contain `@handler` methods.
    static let typeKeywords: Set<String> = ["struct", "class", "enum", "actor", "protocol", "extension"]

    init(parsing source: String) {
        var cursor = TokenCursor(source)
        var modifiers: [String] = []
        var keyword: String?
        while let token = cursor.next() {
            if token == "@" {
                cursor.skipAttributeRemainder()
                continue
            }
            guard token.first.map(TokenCursor.isIdentifierStart) == true else { break }
            if Self.declarationKeywords.contains(token) {
                // `class func`, `class var`: here `class` is a modifier.
                if token == "class", let following = cursor.peek(),
                    Self.declarationKeywords.contains(following), following != "class"
                {
                    modifiers.append(token)
                    continue
                }
                keyword = token
                break
            }
            modifiers.append(token)
            // `private(set)`, `unowned(safe)`: a parenthesized modifier detail.
            if cursor.peek() == "(" {
                cursor.skipBalanced()
            }
        }
        self.modifiers = modifiers
        self.keyword = keyword
        if keyword == "extension" {
            name = cursor.extendedTypeText()
        } else if keyword != nil, let word = cursor.next(), word.first.map(TokenCursor.isIdentifierStart) == true {
            name = word
        } else {
            name = ""
        }
    }
}

/// A minimal tokenizer over a snippet's start: skips whitespace and comments, yields identifiers
/// (backticked ones whole) and single punctuation characters.
struct TokenCursor {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    static func isIdentifierStart(_ character: Character) -> Bool {
        character == "_" || character == "`" || character.isLetter
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte >= 0x80
    }

    /// Number of bytes of leading whitespace and comments in `text`.
    static func triviaLength(of text: String) -> Int {
        var cursor = TokenCursor(text)
        cursor.skipTrivia()
        return cursor.index
    }

    /// Skips spaces, line breaks, `//` comments and (nested) `/* */` comments.
    mutating func skipTrivia() {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
                || byte == UInt8(ascii: "\r") || byte == 0x0B || byte == 0x0C
            {
                index += 1
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n"), bytes[index] != UInt8(ascii: "\r") {
                    index += 1
                }
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                index += 2
                var depth = 1
                while index < bytes.count, depth > 0 {
                    if bytes[index] == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*")
                    {
                        depth += 1
                        index += 2
                    } else if bytes[index] == UInt8(ascii: "*"), index + 1 < bytes.count,
                        bytes[index + 1] == UInt8(ascii: "/")
                    {
                        depth -= 1
                        index += 2
                    } else {
                        index += 1
                    }
                }
            } else {
                return
            }
        }
    }

    /// The next token, or `nil` at the end.
    mutating func next() -> String? {
        skipTrivia()
        guard index < bytes.count else { return nil }
        let start = index
        if bytes[index] == UInt8(ascii: "`") {
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "`") { index += 1 }
            index = min(index + 1, bytes.count)
        } else if Self.isIdentifierByte(bytes[index]) {
            while index < bytes.count, Self.isIdentifierByte(bytes[index]) { index += 1 }
        } else {
            index += 1
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// The next token without consuming it.
    func peek() -> String? {
        var copy = self
        return copy.next()
    }

    /// After an `@`: skips the attribute's name and, when present, its parenthesized arguments.
    mutating func skipAttributeRemainder() {
        _ = next()
        // Qualified names such as `@Module.Wrapper`.
        while peek() == "." {
            _ = next()
            _ = next()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "(") {
            skipBalanced()
        }
    }

    /// Skips a parenthesized group starting at the next token, honouring nesting and string literals.
    mutating func skipBalanced() {
        skipTrivia()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "(") else { return }
        var depth = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "(") {
                depth += 1
            } else if byte == UInt8(ascii: ")") {
                depth -= 1
                if depth == 0 { return }
            } else if byte == UInt8(ascii: "\"") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                index = min(index + 1, bytes.count)
            }
        }
    }

    /// The extended type of an `extension`, as written without whitespace: everything up to the
    /// `{`, the `:` of a conformance list, or a `where` clause, outside `<…>` and `[…]`.
    mutating func extendedTypeText() -> String {
        var text = ""
        var depth = 0
        while let token = peek() {
            if depth == 0 && (token == "{" || token == ":" || token == "where") { break }
            _ = next()
            if token == "<" || token == "[" || token == "(" { depth += 1 }
            if token == ">" || token == "]" || token == ")" { depth = max(0, depth - 1) }
            text += token
        }
        return text
    }
}
