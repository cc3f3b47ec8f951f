import HandlerScanner

/// Works out where a `@handler` declaration sits, for the scanner's context-dependent checks
/// (instance method without `instance:`, handler in a protocol or a local function, …).
enum DeclarationContextResolver {
    /// The context described by the compiler's lexical context (innermost first).
    ///
    /// - Empty: file scope.
    /// - Only types and extensions: a member of the dotted path of their names, outermost first
    ///   (an extension contributes its extended type as written); a protocol if the innermost one is.
    /// - Anything else enclosing it (function, closure, accessor, …): local.
    static func context(lexicalContext: [SyntaxSnippet]) -> DeclarationContext {
        guard !lexicalContext.isEmpty else { return .fileScope }
        var names: [String] = []
        var innermostIsProtocol = false
        for (position, snippet) in lexicalContext.enumerated() {
            guard snippet.kind == "declaration" else { return .local }
            let header = DeclarationHeader(parsing: snippet.source)
            guard let keyword = header.keyword, DeclarationHeader.typeKeywords.contains(keyword),
                !header.name.isEmpty
            else { return .local }
            if position == 0 {
                innermostIsProtocol = keyword == "protocol"
            }
            names.append(header.name)
        }
        return .type(path: names.reversed().joined(separator: "."), isProtocol: innermostIsProtocol)
    }

    /// A best guess for compilers that send no lexical context (before Swift 6.0): a declaration
    /// marked `static`/`class`, or given `instance:`, is taken for a member of an unnamed type;
    /// anything else for a free function. This never invents the context-dependent errors.
    static func fallbackContext(declaration: SyntaxSnippet) -> DeclarationContext {
        let header = DeclarationHeader(parsing: declaration.source)
        if header.modifiers.contains("static") || header.modifiers.contains("class")
            || mentionsInstanceArgument(declaration.source)
        {
            return .type(path: "", isProtocol: false)
        }
        return .fileScope
    }

    /// Whether the `@handler` attribute text passes an `instance:` argument.
    private static func mentionsInstanceArgument(_ source: String) -> Bool {
        var cursor = TokenCursor(source)
        var previous: String?
        while let token = cursor.next() {
            if token == ":", previous == "instance" { return true }
            if token == "func" { return false }
            previous = token
        }
        return false
    }
}
