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

    @Test func withoutSourceLocations() throws {
        let text = try HandlerGenerator(moduleName: "Chat", sourceLocations: false).generate(
            ScanResult(handlers: ModelFixtures.chat))
        #expect(!text.contains("#sourceLocation"))
        try Golden.check(text, against: "Tests/HandlerGeneratorTests/References/ChatWithoutSourceLocations.swift")
    }

    @Test func accessLevelsGlobalActorsAndPrivateDefaults() throws {
        let text = try HandlerGenerator(moduleName: "Chat").generate(
            ScanResult(handlers: ModelFixtures.accessAndIsolation))
        try Golden.check(text, against: "Tests/HandlerGeneratorTests/References/AccessAndIsolation.swift")
        // One id under exclusive `#if` branches: one name for its id value, whichever branch is active.
        #expect(text.components(separatedBy: "static var toggleHandlerID: HandlerID").count == 3)
        #expect(!text.contains("toggleHandlerID_2"))
        #expect(text.components(separatedBy: "static func callToggleHandler(").count == 3)
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
    /// fixture sources, through the scanner, and must be byte-identical to the checked-in copy
    /// (`handlergen generate --module GeneratedCodeTests --no-source-locations …` makes the same file).
    @Test func compiledFixtureFileIsUpToDate() throws {
        let root = Golden.packageRoot.path
        // Files relative to the package root, so `#sourceLocation` names are machine-independent.
        let scan = SourceScanner.scan(paths: [root + "/" + GeneratedCodeFixture.sources], relativeTo: root)
        #expect(scan.diagnostics.isEmpty, "\(scan.diagnostics.map(\.compilerFormatted))")
        // Without `#sourceLocation`: the checked-in copy is compiled from its own path, and the compiler
        // warns when a directive names the fixture file by another path than the one it compiles.
        let text = try HandlerGenerator(moduleName: GeneratedCodeFixture.module, sourceLocations: false).generate(scan)
        try Golden.check(text, against: GeneratedCodeFixture.generatedFile)
    }
}

/// Where the GeneratedCodeTests target keeps its fixture module and its generated file.
enum GeneratedCodeFixture {
    static let module = "GeneratedCodeTests"
    static let sources = "Tests/GeneratedCodeTests/Fixture"
    static let generatedFile = "Tests/GeneratedCodeTests/Generated/HandlerTable+GeneratedCodeTests.swift"
}
