/// One `label: value` argument of `@handler(…)`.
struct AttributeArgument {
    var label: String?
    var labelStart: Int
    var valueStart: Int
    var valueEnd: Int
    /// The resolved string value, when the value is a plain string literal.
    var value: String?
    /// The `former: current` pairs of a valid `renamed:` argument.
    var renames: [FormerParameterName] = []
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

    /// Every argument of `label`: several for the variadic `formerly:` (`formerly: "A", "B"`).
    func arguments(labeled label: String) -> [AttributeArgument] {
        arguments.filter { $0.label == label }
    }
}
