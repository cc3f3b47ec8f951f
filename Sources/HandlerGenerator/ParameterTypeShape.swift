/// What the lexical scanner can tell about a parameter type's stored JSON, for the baseline check: a
/// type as written (whitespace removed) is classified without the compiler, so anything it cannot be
/// sure of is `unknown` and never makes a change an error.
indirect enum ParameterTypeShape: Equatable, Sendable {
    case integer
    case number
    case string
    case bool
    case array(ParameterTypeShape)
    case object(ParameterTypeShape)
    /// A nested handler document.
    case handler
    /// Cannot be stored at all: a function, an existential, a metatype or a tuple.
    case unbindable
    /// A type of the app or of a library: its JSON is not known here.
    case unknown

    /// The shape of `type`, with optionality removed (`T?`, `T!`, `Optional<T>`).
    init(type: String) {
        let base = Self.withoutOptional(Self.withoutAttributes(type))
        if let element = Self.generic(base, ["Array", "Set", "ContiguousArray"])
            ?? Self.bracketed(base, dictionary: false)
        {
            let shape = ParameterTypeShape(type: element)
            self = shape == .unbindable ? .unbindable : .array(shape)
        } else if let pair = Self.bracketed(base, dictionary: true) ?? Self.generic(base, ["Dictionary"]) {
            let parts = Self.splitTopLevel(pair, separators: [":", ","])
            guard parts.count == 2 else {
                self = .unknown
                return
            }
            let value = ParameterTypeShape(type: parts[1])
            if value == .unbindable {
                self = .unbindable
            } else {
                self = Self.unqualified(parts[0]) == "String" ? .object(value) : .unknown
            }
        } else if Self.isUnbindable(base) {
            self = .unbindable
        } else {
            self = Self.scalars[Self.unqualified(base)] ?? .unknown
        }
    }

    /// Whether a value of the type can be bound: `true`, `false`, or `nil` when only the compiler knows
    /// (a type of the app is bindable when it is Codable).
    var isBindable: Bool? {
        switch self {
        case .unbindable: false
        case .unknown: nil
        case .array(let element), .object(let element): element.isBindable
        default: true
        }
    }

    /// Whether stored values of a parameter of shape `self` certainly do not decode as `new`: both are
    /// known and differ in JSON kind. An integer read as a floating-point number is fine.
    func certainlyDiffers(from new: ParameterTypeShape) -> Bool {
        switch (self, new) {
        case (.unknown, _), (_, .unknown), (.unbindable, _), (_, .unbindable): false
        case (.integer, .number), (.number, .integer): false
        case (.array(let old), .array(let element)), (.object(let old), .object(let element)):
            old.certainlyDiffers(from: element)
        default: self != new
        }
    }

    /// Whether every value stored for `self` decodes as `new` (so a type change is not reported).
    func isWidened(to new: ParameterTypeShape) -> Bool {
        switch (self, new) {
        case (.integer, .number): true
        case (.array(let old), .array(let element)), (.object(let old), .object(let element)):
            old.isWidened(to: element)
        default: false
        }
    }

    // MARK: Reading type text

    private static let scalars: [String: ParameterTypeShape] = {
        var table: [String: ParameterTypeShape] = ["Handler": .handler, "HandlerKit.Handler": .handler]
        for name in ["Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"] {
            table[name] = .integer
        }
        for name in ["Double", "Float", "Float32", "Float64", "CGFloat", "Decimal"] { table[name] = .number }
        for name in ["String", "Character", "URL", "UUID"] { table[name] = .string }
        table["Bool"] = .bool
        return table
    }()

    /// The canonical spelling of `type` for comparing two versions: optionality and attributes
    /// removed, `Swift.` dropped, `Array<T>`/`Dictionary<K,V>` as `[T]`/`[K:V]`.
    static func canonical(_ type: String) -> String {
        let base = withoutOptional(withoutAttributes(type))
        if let element = generic(base, ["Array"]) ?? bracketed(base, dictionary: false) {
            return "[" + canonical(element) + "]"
        }
        if let pair = bracketed(base, dictionary: true) ?? generic(base, ["Dictionary"]) {
            let parts = splitTopLevel(pair, separators: [":", ","])
            if parts.count == 2 { return "[" + canonical(parts[0]) + ":" + canonical(parts[1]) + "]" }
        }
        return unqualified(base)
    }

    static func withoutAttributes(_ type: String) -> String {
        var text = Substring(type)
        while text.hasPrefix("@") {
            guard let end = text.dropFirst().firstIndex(where: { !($0.isLetter || $0.isNumber || $0 == "_") }) else {
                break
            }
            text = text[end...]
        }
        if text.hasPrefix("sending") || text.hasPrefix("borrowing") || text.hasPrefix("consuming") {
            if let space = text.firstIndex(where: { !$0.isLetter }) { text = text[space...] }
        }
        return String(text)
    }

    static func withoutOptional(_ type: String) -> String {
        var text = type
        while text.hasSuffix("?") || text.hasSuffix("!") { text.removeLast() }
        if let wrapped = generic(text, ["Optional"]) { return withoutOptional(wrapped) }
        if text.hasPrefix("("), text.hasSuffix(")"),
            splitTopLevel(String(text.dropFirst().dropLast()), separators: [","]).count == 1,
            !text.contains("->")
        {
            return withoutOptional(String(text.dropFirst().dropLast()))
        }
        return text
    }

    private static func unqualified(_ type: String) -> String {
        type.hasPrefix("Swift.") ? String(type.dropFirst(6)) : type
    }

    private static func isUnbindable(_ type: String) -> Bool {
        if type.hasPrefix("any") && type.dropFirst(3).first?.isUppercase == true { return true }
        if type.hasPrefix("some") && type.dropFirst(4).first?.isUppercase == true { return true }
        if ["Any", "AnyObject", "Void"].contains(type) || type.hasSuffix(".Type") || type.hasSuffix(".Protocol") {
            return true
        }
        // A function type (`(Int) -> Void`, `@escaping () async -> Void`) or a tuple.
        return type.hasPrefix("(") || splitTopLevel(type, separators: ["-"]).dropFirst().contains { $0.hasPrefix(">") }
    }

    /// `T` of `Name<T>` for one of `names` (also `Swift.Name<T>`).
    private static func generic(_ type: String, _ names: [String]) -> String? {
        let text = unqualified(type)
        for name in names where text.hasPrefix(name + "<") && text.hasSuffix(">") {
            return String(text.dropFirst(name.count + 1).dropLast())
        }
        return nil
    }

    /// The inside of `[…]` when the brackets enclose the whole type: a dictionary's (`K:V`) when
    /// `dictionary`, else an array's element.
    private static func bracketed(_ type: String, dictionary: Bool) -> String? {
        guard type.hasPrefix("["), type.hasSuffix("]"), splitTopLevel(type, separators: ["\u{0}"]) == [type] else {
            return nil
        }
        var depth = 0
        for (offset, character) in type.enumerated() {
            if character == "[" { depth += 1 }
            if character == "]" { depth -= 1 }
            if depth == 0, offset < type.count - 1 { return nil }  // `[A]` closes before the end
        }
        let inner = String(type.dropFirst().dropLast())
        let isDictionary = splitTopLevel(inner, separators: [":"]).count == 2
        return isDictionary == dictionary ? inner : nil
    }

    /// `text` split at `separators` outside brackets, parentheses and angle brackets.
    static func splitTopLevel(_ text: String, separators: Set<Character>) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var previous: Character = " "
        for character in text {
            switch character {
            case "(", "[", "<": depth += 1
            case ")", "]": depth -= 1
            case ">" where previous != "-": depth -= 1
            default: break
            }
            if depth == 0, separators.contains(character) {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
            previous = character
        }
        parts.append(current)
        return parts
    }
}
