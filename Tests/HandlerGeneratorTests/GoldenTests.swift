import Foundation
import HandlerGenerator
import HandlerScanner
import Testing

/// Generated output compared byte for byte with `References/` (see `Golden` for re-recording).
@Suite struct GoldenTests {
    @Test func everyFormFromModelValues() throws {
        let text = try HandlerGenerator(moduleName: "Chat").generate(ScanResult(handlers: ModelFixtures.chat))
        try Golden.check(text, against: "Tests/HandlerGeneratorTests/References/Chat.swift")
    }

    @Test func moduleWithoutHandlers() throws {
        let text = try HandlerGenerator(moduleName: "URLTools").generate(ScanResult())
        try Golden.check(text, against: "Tests/HandlerGeneratorTests/References/Empty.swift")
    }

    @Test func clashingNamesAndOverloads() throws {
        let text = try HandlerGenerator(moduleName: "default").generate(ScanResult(handlers: ModelFixtures.clashes))
        try Golden.check(text, against: "Tests/HandlerGeneratorTests/References/Clashes.swift")
    }

    /// The generated file the GeneratedCodeTests target compiles and runs is regenerated here from its
    /// fixture sources, through the scanner, and must be byte-identical to the checked-in copy.
    @Test func compiledFixtureFileIsUpToDate() throws {
        let root = Golden.packageRoot.path
        // Files relative to the package root, so `#sourceLocation` names are machine-independent.
        let scan = SourceScanner.scan(paths: [root + "/" + GeneratedCodeFixture.sources], relativeTo: root)
        #expect(scan.diagnostics.isEmpty, "\(scan.diagnostics.map(\.compilerFormatted))")
        let text = try HandlerGenerator(moduleName: GeneratedCodeFixture.module).generate(scan)
        try Golden.check(text, against: GeneratedCodeFixture.generatedFile)
    }
}

/// Where the GeneratedCodeTests target keeps its fixture module and its generated file.
enum GeneratedCodeFixture {
    static let module = "GeneratedCodeTests"
    static let sources = "Tests/GeneratedCodeTests/Fixture"
    static let generatedFile = "Tests/GeneratedCodeTests/Generated/HandlerTable+GeneratedCodeTests.swift"
}
