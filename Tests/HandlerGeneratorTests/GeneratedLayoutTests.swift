import Foundation
import HandlerGenerator
import HandlerScanner
import Testing

/// The generated file reads like hand-written code: one statement per line, and no line longer than
/// the project's 120 columns where the text is the generator's own. A line that repeats the user's
/// text (a row of parameters the user wrote on one line, a default value) is mapped to the user's line
/// by `#sourceLocation` and keeps that line's items together, so it is as long as the user made it.
@Suite struct GeneratedLayoutTests {
    /// The generated files of the model fixtures, with and without `#sourceLocation`, and of the
    /// compiled fixture module.
    static func files() throws -> [(name: String, text: String)] {
        let root = Golden.packageRoot.path
        let compiled = SourceScanner.scan(paths: [root + "/" + GeneratedCodeFixture.sources], relativeTo: root)
        return [
            ("Chat", try HandlerGenerator(moduleName: "Chat").generate(ScanResult(handlers: ModelFixtures.chat))),
            (
                "Chat without #sourceLocation",
                try HandlerGenerator(moduleName: "Chat", sourceLocations: false).generate(
                    ScanResult(handlers: ModelFixtures.chat))
            ),
            (
                "AccessAndIsolation",
                try HandlerGenerator(moduleName: "Chat").generate(
                    ScanResult(handlers: ModelFixtures.accessAndIsolation))
            ),
            (
                "Clashes",
                try HandlerGenerator(moduleName: "default").generate(ScanResult(handlers: ModelFixtures.clashes))
            ),
            (
                GeneratedCodeFixture.module,
                try HandlerGenerator(moduleName: GeneratedCodeFixture.module).generate(compiled)
            ),
        ]
    }

    @Test func noLineOfTheGeneratorsOwnIsLongerThan120Columns() throws {
        for (name, text) in try Self.files() where name != "Chat without #sourceLocation" {
            let long = SourceLocationTests.mappedLines(text).filter { $0.file == nil && $0.text.count > 120 }
            #expect(long.isEmpty, "\(name): \(long.map { "line \($0.line): \($0.text.count) columns" })")
        }
    }

    /// Without `#sourceLocation` nothing is mapped: the fixtures' lines all fit.
    @Test func withoutSourceLocationsTheChatFixtureFitsIn120Columns() throws {
        let text = try HandlerGenerator(moduleName: "Chat", sourceLocations: false).generate(
            ScanResult(handlers: ModelFixtures.chat))
        let lines: [Substring] = text.split(separator: "\n", omittingEmptySubsequences: false)
        let long = lines.indices.filter { lines[$0].count > 120 }.map { "line \($0 + 1): \(lines[$0].count) columns" }
        #expect(long.isEmpty, "\(long)")
    }

    @Test func everyStatementIsOnALineOfItsOwn() throws {
        for (name, text) in try Self.files() {
            // A `;` outside a string literal joins statements.
            let lines: [Substring] = text.split(separator: "\n", omittingEmptySubsequences: false)
            let joined = lines.indices.filter { index in
                var inString = false
                for character in lines[index] {
                    if character == "\"" { inString.toggle() }
                    if character == ";" && !inString { return true }
                }
                return false
            }.map { "line \($0 + 1): \(lines[$0])" }
            #expect(joined.isEmpty, "\(name): \(joined)")
        }
    }
}
