extension HandlerContext {
    /// `["A", "B"]`: a Swift array literal of the strings, each escaped for a string literal.
    static func stringArray(_ texts: [String]) -> String {
        "[" + texts.map { "\"" + SwiftSource.stringLiteralContent($0) + "\"" }.joined(separator: ", ") + "]"
    }
}
