import Foundation

/// Reads the Swift code blocks of a Markdown file and the marked regions of a Swift file.
enum CodeExtraction {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The comment that, on the line right above a ```` ```swift ```` fence, marks a block that is not
    /// compiled, with the reason after the colon: `<!-- not compiled: a Package.swift manifest -->`.
    static let notCompiledMarker = "<!-- not compiled:"

    /// A ```` ```swift ```` block of a Markdown file.
    struct Block: Equatable {
        /// Its lines, joined with line feeds (without the fences).
        var code: String
        /// The line of its opening fence, counted from 1.
        var line: Int
        /// `false` when the line above its fence is a `<!-- not compiled: … -->` comment.
        var isCompiled: Bool
    }

    /// The ```` ```swift ```` blocks of `markdown`, in order.
    static func swiftBlocks(in markdown: String, file: String) throws -> [Block] {
        var blocks: [Block] = []
        var current: (line: Int, isCompiled: Bool, lines: [Substring])?
        var inOtherBlock = false
        var previous = ""
        for (number, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fence = line.trimmingCharacters(in: .whitespaces)
            defer { previous = fence }
            if let block = current {
                if fence == "```" {
                    blocks.append(
                        Block(code: block.lines.joined(separator: "\n"), line: block.line, isCompiled: block.isCompiled)
                    )
                    current = nil
                } else {
                    current?.lines.append(line)
                }
            } else if inOtherBlock {
                if fence == "```" { inOtherBlock = false }
            } else if fence == "```swift" {
                let marked = previous.hasPrefix(notCompiledMarker)
                if marked && !previous.hasSuffix("-->") || previous == notCompiledMarker + " -->" {
                    throw Failure(
                        description: "\(file):\(number): say why the block is not compiled, on one line: "
                            + "\(notCompiledMarker) <reason> -->")
                }
                current = (number + 1, !marked, [])
            } else if fence.hasPrefix("```") {
                inOtherBlock = true
            }
        }
        if let current {
            throw Failure(description: "\(file):\(current.line): the Swift block opened here is not closed")
        }
        return blocks
    }

    /// A snippet of a Swift file: the regions between `// snippet: <name>` and `// end snippet` lines
    /// with that name, in order, each without the indentation its lines share, joined with line feeds.
    /// A snippet in several regions shows as one block code that the file splits, for example
    /// declarations at file scope and statements inside a function.
    struct Snippet: Equatable {
        var name: String
        var code: String
        /// The line of its first region's `// snippet:` marker, counted from 1.
        var line: Int
    }

    /// The snippets of `source`, in the order of their first regions.
    static func snippets(in source: String, file: String) throws -> [Snippet] {
        var snippets: [Snippet] = []
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
                let code = dedented(region.lines)
                if let index = snippets.firstIndex(where: { $0.name == region.name }) {
                    snippets[index].code += "\n" + code
                } else {
                    snippets.append(Snippet(name: region.name, code: code, line: region.line))
                }
                current = nil
            } else {
                current?.lines.append(line)
            }
        }
        if let current {
            throw Failure(description: "\(file):\(current.line): the snippet `\(current.name)` is not ended")
        }
        return snippets
    }

    /// `lines` without the leading spaces that all of them but the empty ones share, joined.
    static func dedented(_ lines: [Substring]) -> String {
        let indentation =
            lines.filter { !$0.allSatisfy(\.isWhitespace) }
            .map { $0.prefix(while: { $0 == " " }).count }.min() ?? 0
        return lines.map { $0.allSatisfy(\.isWhitespace) ? "" : String($0.dropFirst(indentation)) }
            .joined(separator: "\n")
    }
}
