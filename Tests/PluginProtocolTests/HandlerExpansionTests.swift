import HandlerScanner
import PluginProtocol
import Testing

/// `@handler` expansions through the library, with requests shaped like the compiler's.
@Suite("Handler expansion: validation through HandlerScanner")
struct HandlerExpansionTests {
    static let source = """
        struct Account { var omemo: OMEMO }
        final class OMEMO {}

        enum Carbons {
            @handler
            static func enabled(account: Account, iqNode: String) { }

            @handler
            private static func hidden(account: Account) { }

            @handler
            fileprivate static func halfHidden(account: Account) { }

            @handler
            static func generic<T>(value: T) { }

            @handler
            static func mutating(count: inout Int) { }

            @handler
            static func variadic(values: Int...) { }

            @handler(instance: "account.carbons")
            static func staticWithInstance(account: Account) { }

            @handler(name: "x")
            static func unknownArgument(account: Account) { }
        }

        extension OMEMO {
            /// Fetched.
            @handler(instance: "account.omemo")   // how to find the instance
            func bundleFetched(account: Account, jid: String, success: Bool,
                               errorReason: String? = nil, rid: String) async throws { }

            @handler
            func withoutInstance(account: Account) { }

            @handler(id: "omemo.reset", instance: "account.omemo")
            func reset(account: Account) { }
        }

        protocol Requirement {
            @handler
            func required()
        }

        @handler(id: "cleanup.v1")
        func cleanUp(reason: String) { let é = "ü"; _ = é }

        func outer() {
            @handler
            func local() { }
        }
        """

    static let requests = CompilerRequests(source: source)

    /// Where each declaration sits (innermost context first), as the compiler reports it.
    static let carbons = ["\n\nenum Carbons {}"]
    static let omemo = ["\n\nextension OMEMO {}"]

    private func diagnostics(_ declaration: String, context: [String]) -> [PluginDiagnostic] {
        HandlerMacroExpander().diagnostics(for: Self.requests.request(for: declaration, context: context))
    }

    @Test(arguments: [
        ("@handler\n    static func enabled(account: Account, iqNode: String) { }", carbons),
        (
            "@handler(instance: \"account.omemo\")   // how to find the instance\n    func bundleFetched(account: Account, jid: String, success: Bool,\n                       errorReason: String? = nil, rid: String) async throws { }",
            omemo
        ),
        ("@handler(id: \"omemo.reset\", instance: \"account.omemo\")\n    func reset(account: Account) { }", omemo),
        ("@handler(id: \"cleanup.v1\")\nfunc cleanUp(reason: String) { let é = \"ü\"; _ = é }", []),
    ])
    func validDeclarationHasNoDiagnostics(declaration: String, context: [String]) {
        #expect(diagnostics(declaration, context: context) == [])
    }

    /// Each misuse of `@handler` that one declaration shows, with a word its message must contain.
    static let misuses: [(name: String, declaration: String, context: [String], keyword: String)] = [
        ("private", "@handler\n    private static func hidden(account: Account) { }", carbons, "private"),
        (
            "fileprivate", "@handler\n    fileprivate static func halfHidden(account: Account) { }", carbons,
            "fileprivate"
        ),
        ("generic", "@handler\n    static func generic<T>(value: T) { }", carbons, "generic"),
        ("inout", "@handler\n    static func mutating(count: inout Int) { }", carbons, "inout"),
        ("variadic", "@handler\n    static func variadic(values: Int...) { }", carbons, "variadic"),
        (
            "static with instance:",
            "@handler(instance: \"account.carbons\")\n    static func staticWithInstance(account: Account) { }",
            carbons, "instance"
        ),
        (
            "unknown argument", "@handler(name: \"x\")\n    static func unknownArgument(account: Account) { }", carbons,
            "name"
        ),
        ("instance without instance:", "@handler\n    func withoutInstance(account: Account) { }", omemo, "instance"),
        ("in a protocol", "@handler\n    func required()", ["\n\nprotocol Requirement {}"], "protocol"),
        ("local function", "@handler\n    func local() { }", ["\n\nfunc outer() "], "local"),
    ]

    @Test(arguments: 0..<misuses.count)
    func misuseIsAnErrorAtTheDeclaration(index: Int) throws {
        let misuse = Self.misuses[index]
        let request = Self.requests.request(for: misuse.declaration, context: misuse.context)
        let reported = HandlerMacroExpander().diagnostics(for: request)
        let errors = reported.filter { $0.severity == .error }
        #expect(!errors.isEmpty, "\(misuse.name): \(reported)")
        let matching = errors.filter { $0.message.lowercased().contains(misuse.keyword) }
        #expect(!matching.isEmpty, "\(misuse.name): no error mentions '\(misuse.keyword)': \(errors.map(\.message))")

        // Positions are in the compiler's file: same file name, on the declaration's lines.
        let attributeLine = Self.requests.line(of: misuse.declaration)
        let lastLine = attributeLine + misuse.declaration.filter { $0 == "\n" }.count
        for error in errors {
            #expect(error.position.fileName == Self.requests.fileName)
            let (line, _) = Self.requests.lineAndColumn(ofOffset: error.position.offset)
            #expect((attributeLine...lastLine).contains(line), "\(misuse.name): \(error) on line \(line)")
        }

        // And exactly where the scanner put them: offset -> line/column gives the scanner's values back.
        let location = request.declSyntax.location
        let scanned = SourceScanner.scanDeclaration(
            request.declSyntax.source, file: location.fileName, line: location.line, column: location.column,
            context: try #require(Self.context(misuse.context)))
        #expect(scanned.diagnostics.count == reported.count)
        for (scannerDiagnostic, diagnostic) in zip(scanned.diagnostics, reported) {
            let (line, column) = Self.requests.lineAndColumn(ofOffset: diagnostic.position.offset)
            #expect(line == scannerDiagnostic.line && column == scannerDiagnostic.column, "\(misuse.name)")
            #expect(diagnostic.message == scannerDiagnostic.message)
        }
    }

    /// The scanner context each test context stands for (what the plugin derives, written out).
    static func context(_ snippets: [String]) -> DeclarationContext? {
        switch snippets {
        case []: return .fileScope
        case carbons: return .type(path: "Carbons", isProtocol: false)
        case omemo: return .type(path: "OMEMO", isProtocol: false)
        case ["\n\nprotocol Requirement {}"]: return .type(path: "Requirement", isProtocol: true)
        case ["\n\nfunc outer() "]: return .local
        default: return nil
        }
    }

    @Test func missingInstanceHasAFixItThatAddsIt() throws {
        let declaration = "@handler\n    func withoutInstance(account: Account) { }"
        let reported = diagnostics(declaration, context: Self.omemo)
        let error = try #require(reported.first { $0.message.contains("instance") })
        let fixIt = try #require(error.fixIts.first, "no fix-it: \(error)")
        let change = try #require(fixIt.changes.first)
        #expect(change.range.fileName == Self.requests.fileName)
        #expect(change.newText.contains("instance:"))

        // Applying it to the file yields `@handler(instance: …)` on that declaration.
        var bytes = Array(Self.source.utf8)
        let range = Self.requests.byteRange(of: declaration)
        #expect(range.contains(change.range.startOffset) && change.range.endOffset <= range.upperBound)
        bytes.replaceSubrange(change.range.startOffset..<change.range.endOffset, with: Array(change.newText.utf8))
        let fixed = String(decoding: bytes, as: UTF8.self)
        #expect(fixed.contains("@handler(instance:"), "\(fixed)")
    }

    @Test func declarationThatIsNotAFunctionIsAnError() {
        let requests = CompilerRequests(source: "enum E {\n    @handler\n    static var value = 1\n}\n")
        let reported = HandlerMacroExpander().diagnostics(
            for: requests.request(for: "@handler\n    static var value = 1", context: ["enum E {}"]))
        #expect(reported.contains { $0.severity == .error })
        #expect(reported.allSatisfy { requests.lineAndColumn(ofOffset: $0.position.offset).line >= 2 })
    }
}
