import Foundation
import Testing

/// The code of the articles is the code that compiles: the Swift blocks of each article below are, in
/// order and character for character, the regions of its snippets file, which a target compiles.
@Suite struct ArticleSnippetTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let catalog = "Sources/HandlerKitSignals/HandlerKitSignals.docc/"

    /// Each article, and the file of the target that compiles its snippets.
    static let articles: [(article: String, snippets: String)] = [
        (catalog + "SignalsOnIOS.md", "Tests/HandlerKitSignalsTests/IOSArticleSnippets.swift"),
        // In the probe, which the build plugin generates `@handler` references for.
        (catalog + "DurablePromises.md", "Tests/SignalsProbe/PromiseArticleSnippets.swift"),
    ]

    static func text(of path: String) throws -> String {
        try String(contentsOf: packageRoot.appending(path: path), encoding: .utf8)
    }

    @Test(arguments: articles.map(\.article))
    func theArticleShowsTheCompiledSnippetsInOrder(_ article: String) throws {
        let snippets = try #require(Self.articles.first { $0.article == article }?.snippets)
        let blocks = try CodeExtraction.swiftBlocks(in: Self.text(of: article), file: article)
        let regions = try CodeExtraction.regions(in: Self.text(of: snippets), file: snippets)
        #expect(!regions.isEmpty)
        #expect(
            blocks.count == regions.count,
            "\(article) has \(blocks.count) Swift blocks, \(snippets) \(regions.count) snippets")
        for (index, (block, region)) in zip(blocks, regions).enumerated() {
            #expect(
                block == region.code,
                "Swift block \(index + 1) of \(article) is not the snippet `\(region.name)`: copy the snippet into it")
        }
    }

    @Test func blocksAndRegionsAreReadExactly() throws {
        let markdown = "Text.\n\n```swift\nlet a = 1\n\n  let b = 2\n```\n\n```\nnot Swift\n```\n\n```swift\nc()\n```\n"
        #expect(try CodeExtraction.swiftBlocks(in: markdown, file: "a.md") == ["let a = 1\n\n  let b = 2", "c()"])
        let source =
            "x()\n// snippet: one\nlet a = 1\n\n  let b = 2\n// end snippet\ny()\n// snippet: two\nc()\n// end snippet\n"
        let regions = try CodeExtraction.regions(in: source, file: "a.swift")
        #expect(regions.map(\.name) == ["one", "two"])
        #expect(regions.map(\.code) == ["let a = 1\n\n  let b = 2", "c()"])
    }

    @Test func anUnclosedBlockOrRegionIsAnError() {
        #expect(throws: CodeExtraction.Failure.self) {
            try CodeExtraction.swiftBlocks(in: "```swift\nlet a = 1\n", file: "a.md")
        }
        #expect(throws: CodeExtraction.Failure.self) {
            try CodeExtraction.regions(in: "// snippet: one\nlet a = 1\n", file: "a.swift")
        }
        #expect(throws: CodeExtraction.Failure.self) {
            try CodeExtraction.regions(in: "// snippet: one\n// snippet: two\n// end snippet\n", file: "a.swift")
        }
        #expect(throws: CodeExtraction.Failure.self) {
            try CodeExtraction.regions(in: "let a = 1\n// end snippet\n", file: "a.swift")
        }
    }
}

/// Reads the Swift code blocks of a Markdown file and the marked regions of a Swift file.
enum CodeExtraction {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The contents of the ```` ```swift ```` blocks of `markdown`, in order.
    static func swiftBlocks(in markdown: String, file: String) throws -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        var opened = 0
        var inOtherBlock = false
        for (number, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fence = line.trimmingCharacters(in: .whitespaces)
            if current != nil {
                if fence == "```" {
                    blocks.append(current?.joined(separator: "\n") ?? "")
                    current = nil
                } else {
                    current?.append(line)
                }
            } else if inOtherBlock {
                if fence == "```" { inOtherBlock = false }
            } else if fence == "```swift" {
                current = []
                opened = number + 1
            } else if fence.hasPrefix("```") {
                inOtherBlock = true
            }
        }
        if current != nil { throw Failure(description: "\(file):\(opened): the Swift block opened here is not closed") }
        return blocks
    }

    /// The regions of `source` between `// snippet: <name>` and `// end snippet` lines, in order.
    static func regions(in source: String, file: String) throws -> [(name: String, code: String)] {
        var regions: [(name: String, code: String)] = []
        var current: (name: String, line: Int, lines: [Substring])?
        for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let marker = line.trimmingCharacters(in: .whitespaces)
            if marker.hasPrefix("// snippet: ") {
                if let current {
                    throw Failure(description: "\(file):\(number + 1): a snippet begins inside `\(current.name)`")
                }
                current = (String(marker.dropFirst("// snippet: ".count)), number + 1, [])
            } else if marker == "// end snippet" {
                guard let region = current else {
                    throw Failure(description: "\(file):\(number + 1): `// end snippet` outside a snippet")
                }
                regions.append((region.name, region.lines.joined(separator: "\n")))
                current = nil
            } else {
                current?.lines.append(line)
            }
        }
        if let current {
            throw Failure(description: "\(file):\(current.line): the snippet `\(current.name)` is not ended")
        }
        return regions
    }
}
