import Foundation
import Testing

/// The code of the documentation is code that compiles: each Swift block of README.md and of every
/// DocC article is, in order and character for character, a snippet of `Snippets/<document>.swift`,
/// which this target compiles (with the build plugin, and every product and trait). What a block
/// needs besides itself (the values it uses, stand-ins for an app's types) is in that file outside the
/// snippets, or in the stand-in files beside it. A block that cannot compile (a Package.swift
/// manifest) says so on the line above its fence: `<!-- not compiled: <reason> -->`.
@Suite struct ArticleSnippetTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let snippetsFolder = "Tests/DocumentationTests/Snippets/"

    /// README.md and every Markdown file of the DocC catalogs under Sources, relative to the package.
    static let documents: [String] = {
        var paths = ["README.md"]
        let sources = packageRoot.appending(path: "Sources")
        let fileManager = FileManager.default
        for module in (try? fileManager.contentsOfDirectory(atPath: sources.path)) ?? [] {
            for entry in (try? fileManager.contentsOfDirectory(atPath: sources.appending(path: module).path)) ?? []
            where entry.hasSuffix(".docc") {
                let catalog = "Sources/\(module)/\(entry)"
                let files = fileManager.enumerator(atPath: packageRoot.appending(path: catalog).path)
                while let file = files?.nextObject() as? String {
                    if file.hasSuffix(".md") { paths.append("\(catalog)/\(file)") }
                }
            }
        }
        return paths.sorted()
    }()

    static func text(of path: String) throws -> String {
        try String(contentsOf: packageRoot.appending(path: path), encoding: .utf8)
    }

    /// The snippets file of a document: `Snippets/<its name without .md>.swift`.
    static func snippetsFile(of document: String) -> String {
        snippetsFolder + URL(fileURLWithPath: document).deletingPathExtension().lastPathComponent + ".swift"
    }

    @Test func theDocumentsAreFound() {
        #expect(Self.documents.contains("README.md"))
        #expect(Self.documents.contains("Sources/HandlerKit/HandlerKit.docc/GettingStarted.md"))
        #expect(Self.documents.contains("Sources/HandlerKitSignals/HandlerKitSignals.docc/SignalsOnIOS.md"))
        let names = Self.documents.map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(Set(names).count == names.count, "two documents share a name, and so would their snippets files")
    }

    @Test(arguments: documents)
    func everySwiftBlockIsACompiledSnippet(_ document: String) throws {
        let blocks = try CodeExtraction.swiftBlocks(in: Self.text(of: document), file: document)
            .filter(\.isCompiled)
        let file = Self.snippetsFile(of: document)
        guard FileManager.default.fileExists(atPath: Self.packageRoot.appending(path: file).path) else {
            #expect(
                blocks.isEmpty,
                "\(document) has \(blocks.count) Swift blocks to compile: make \(file) with a snippet of each")
            return
        }
        let snippets = try CodeExtraction.snippets(in: Self.text(of: file), file: file)
        #expect(
            blocks.count == snippets.count,
            "\(document) has \(blocks.count) Swift blocks to compile, \(file) \(snippets.count) snippets")
        for (block, snippet) in zip(blocks, snippets) where block.code != snippet.code {
            Issue.record(
                """
                The Swift block at \(document):\(block.line) is not the snippet `\(snippet.name)` at \
                \(file):\(snippet.line). The block:
                \(block.code)
                The snippet:
                \(snippet.code)
                """)
        }
    }

    @Test func everySnippetsFileHasItsDocument() throws {
        let names = Set(Self.documents.map { URL(fileURLWithPath: Self.snippetsFile(of: $0)).lastPathComponent })
        let files = try FileManager.default.contentsOfDirectory(
            atPath: Self.packageRoot.appending(path: Self.snippetsFolder).path)
        #expect(!files.isEmpty)
        for file in files where !names.contains(file) {
            Issue.record("\(Self.snippetsFolder)\(file) is the snippets file of no document")
        }
    }

    @Test func blocksAndSnippetsAreReadExactly() throws {
        let markdown = """
            Text.

            ```swift
            let a = 1

              let b = 2
            ```

            ```
            not Swift
            ```

            <!-- not compiled: a fragment -->
            ```swift
            .package(path: "..")
            ```

            ```swift
            c()
            ```

            """
        let blocks = try CodeExtraction.swiftBlocks(in: markdown, file: "a.md")
        #expect(blocks.map(\.code) == ["let a = 1\n\n  let b = 2", ".package(path: \"..\")", "c()"])
        #expect(blocks.map(\.isCompiled) == [true, false, true])
        #expect(blocks.map(\.line) == [3, 14, 18])
        let source = """
            x()
            // snippet: one
            let a = 1

              let b = 2
            // end snippet
            enum Namespace {
                // snippet: two
                enum Inner {}

                // end snippet
                static func run() {
                    // snippet: two
                    c()
                    // end snippet
                }
            }

            """
        let snippets = try CodeExtraction.snippets(in: source, file: "a.swift")
        #expect(snippets.map(\.name) == ["one", "two"])
        #expect(snippets.map(\.code) == ["let a = 1\n\n  let b = 2", "enum Inner {}\n\nc()"])
        #expect(snippets.map(\.line) == [2, 8])
    }

    @Test func anUnclosedBlockOrRegionOrAMarkerWithoutReasonIsAnError() {
        #expect(throws: CodeExtraction.Failure.self) {
            try CodeExtraction.swiftBlocks(in: "```swift\nlet a = 1\n", file: "a.md")
        }
        #expect(throws: CodeExtraction.Failure.self) {
            try CodeExtraction.swiftBlocks(in: "<!-- not compiled: -->\n```swift\nlet a = 1\n```\n", file: "a.md")
        }
        #expect(throws: CodeExtraction.Failure.self) {
            try CodeExtraction.snippets(in: "// snippet: one\nlet a = 1\n", file: "a.swift")
        }
        #expect(throws: CodeExtraction.Failure.self) {
            try CodeExtraction.snippets(in: "// snippet: one\n// snippet: two\n// end snippet\n", file: "a.swift")
        }
        #expect(throws: CodeExtraction.Failure.self) {
            try CodeExtraction.snippets(in: "let a = 1\n// end snippet\n", file: "a.swift")
        }
    }
}
