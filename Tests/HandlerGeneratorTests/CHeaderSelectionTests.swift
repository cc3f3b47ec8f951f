import Foundation
import HandlerGenerator
import HandlerScanner
import Testing

/// Which parameter types `handlergen` looks for in C headers, and what a header libclang cannot parse
/// does to generation: nothing, unless a handler binds a type declared in it.
@Suite struct CHeaderSelectionTests {
    /// A TLS library's kind of header: libclang reports an error in it (a function-like macro given too
    /// many arguments), and it mentions Foundation's type names.
    static let unparsableHeader = """
        #define HK_PREFIX(name) hk_##name
        #define HK_seal HK_PREFIX(seal, Data)
        /* Seals Data at a Date for a URL, with a UUID. */
        int HK_seal(const unsigned char *bytes, unsigned long length);
        typedef struct { int length; } HKSecret;

        """

    let generation = CTypeGenerationTests()

    /// A module `App` whose handlers are `handlers`, with the C modules `headers` (module → header text).
    func module(handlers: String, headers: [String: String]) throws -> URL {
        var files = ["Sources/App/Handlers.swift": "import Foundation\nimport HandlerKit\n\n" + handlers]
        for (name, text) in headers { files["Sources/\(name)/include/\(name).h"] = text }
        return try generation.folder(files)
    }

    /// `handlergen generate` for `App` with the header directories of `modules`.
    func generate(in root: URL, modules: [String], libclang: String) throws -> CommandLineTests.Run {
        let directories = modules.flatMap { ["--c-header-directory", "Sources/\($0)/include"] }
        return try generation.run(
            ["generate", "--module", "App", "--output", "Generated.swift", "--libclang", libclang] + directories
                + ["Sources/App"],
            in: root)
    }

    static let foundationHandlers = """
        enum H {
            @handler static func store(blob: Data, at path: URL, id: UUID, when: Date, amount: Decimal?) {}
            @handler static func bill(_ invoice: Invoice, lines: [Line]) {}
        }
        struct Invoice: Codable { var number: Int }
        extension H { enum Line: Codable { case one } }
        typealias Data2 = Data

        """

    @Test func candidateNamesLeaveOutFoundationTypesAndTheModulesOwn() {
        let scan = SourceScanner.scan(
            source: Self.foundationHandlers
                + "enum K { @handler static func f(a: HKPair, b: Data2, c: TimeInterval) {} }",
            file: "a.swift")
        #expect(scan.diagnostics.isEmpty, "\(scan.diagnostics)")
        #expect(CTypeConversions.candidateNames(in: scan) == ["HKPair"])
    }

    @Test func foundationTypesNeverLoadLibclang() throws {
        let root = try module(handlers: Self.foundationHandlers, headers: ["CTLS": Self.unparsableHeader])
        let result = try generate(in: root, modules: ["CTLS"], libclang: "/nonexistent")
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOf: root.appending(path: "Generated.swift"), encoding: .utf8)
        #expect(!text.contains("@retroactive"))
    }

    @Test(arguments: CTypeGenerationTests.libclangs)
    func anUnparsableHeaderNoHandlerNeedsIsLeftAlone(libclang: String) throws {
        let root = try module(
            handlers: Self.foundationHandlers
                + "enum P { @handler static func take(pair: HKPair, session: HKSession) {} }\n",
            headers: [
                "CTLS": Self.unparsableHeader + "/* HKSession and HKPair live elsewhere. */\n",
                "CPairs": "typedef struct { int a; int b; } HKPair;\n",
            ])
        let result = try generate(in: root, modules: ["CTLS", "CPairs"], libclang: libclang)
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOf: root.appending(path: "Generated.swift"), encoding: .utf8)
        #expect(text.contains("extension HKPair: @retroactive Codable"), "\(text)")
        #expect(text.contains("import CPairs"), "\(text)")
    }

    @Test(arguments: CTypeGenerationTests.libclangs)
    func anUnparsableHeaderAHandlerNeedsIsAnErrorNamingTypeHeaderAndCause(libclang: String) throws {
        let root = try module(
            handlers: "enum P { @handler static func take(secret: HKSecret, blob: Data) {} }\n",
            headers: ["CTLS": Self.unparsableHeader])
        let result = try generate(in: root, modules: ["CTLS"], libclang: libclang)
        #expect(result.status == 1)
        #expect(result.stderr.contains("Sources/CTLS/include/CTLS.h:"), "\(result.stderr)")
        #expect(result.stderr.contains("'HKSecret' (declared in "), "\(result.stderr)")
        #expect(result.stderr.contains("too many arguments"), "\(result.stderr)")
        #expect(result.stderr.contains("or give the handler a Swift type instead"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root.appending(path: "Generated.swift").path))
    }
}
