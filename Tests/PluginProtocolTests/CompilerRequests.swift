import Foundation
import PluginProtocol

/// Builds requests the way the Swift compiler does (checked against what Swift 6.3.1 sends): the
/// declaration's text starts right after the previous token, so it carries its leading newlines and
/// indentation, and its location is that start (1-based line and UTF-8 column, 0-based UTF-8 offset).
struct CompilerRequests {
    var fileName = "/tmp/Handlers.swift"
    var moduleName = "App"
    /// The whole file.
    var source: String

    /// The byte range of the first occurrence of `text` in `source`, or an empty range at 0.
    func byteRange(of text: String) -> Range<Int> {
        let bytes = Array(source.utf8)
        let target = Array(text.utf8)
        guard target.count <= bytes.count else { return 0..<0 }
        for index in 0...(bytes.count - target.count) where Array(bytes[index..<index + target.count]) == target {
            return index..<index + target.count
        }
        return 0..<0
    }

    /// The snippet of the bytes `start..<end` of `source`, extended back over the whitespace before it.
    func snippet(from start: Int, to end: Int, kind: String) -> SyntaxSnippet {
        let bytes = Array(source.utf8)
        var snippetStart = start
        while snippetStart > 0,
            [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t")].contains(bytes[snippetStart - 1])
        {
            snippetStart -= 1
        }
        let (line, column) = lineAndColumn(ofOffset: snippetStart)
        return SyntaxSnippet(
            kind: kind,
            source: String(decoding: bytes[snippetStart..<end], as: UTF8.self),
            location: .init(
                fileID: "\(moduleName)/\((fileName as NSString).lastPathComponent)", fileName: fileName,
                offset: snippetStart, line: line, column: column))
    }

    /// An `expandAttachedMacro` request for `declaration` (unique in `source`, starting with its
    /// `@handler` attribute), inside the enclosing declarations `context` (innermost first, members
    /// removed, as the compiler sends them).
    func request(
        for declaration: String, context: [String] = [], typeName: String = "HandlerMacro"
    ) -> AttachedMacroRequest {
        let range = byteRange(of: declaration)
        var attributeLength = "@handler".utf8.count
        if declaration.hasPrefix("@handler("), let close = declaration.firstIndex(of: ")") {
            attributeLength = declaration[...close].utf8.count
        }
        return AttachedMacroRequest(
            macro: MacroReference(moduleName: "HandlerKitMacros", typeName: typeName, name: "handler"),
            macroRole: "peer", discriminator: "$s3App7handlerfMp_",
            attributeSyntax: snippet(from: range.lowerBound, to: range.lowerBound + attributeLength, kind: "attribute"),
            declSyntax: snippet(from: range.lowerBound, to: range.upperBound, kind: "declaration"),
            lexicalContext: context.map {
                SyntaxSnippet(
                    kind: $0.hasPrefix("{") ? "expression" : "declaration", source: $0,
                    location: .init(fileID: "", fileName: "", offset: 0, line: 0, column: 0))
            })
    }

    /// The 1-based line and UTF-8 column of a 0-based UTF-8 offset in `source`.
    func lineAndColumn(ofOffset offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in source.utf8.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (line, column)
    }

    /// The 1-based line on which `text` (unique in `source`) starts.
    func line(of text: String) -> Int {
        guard let range = source.range(of: text) else { return 0 }
        return source[..<range.lowerBound].filter { $0 == "\n" }.count + 1
    }
}

/// JSON helpers for tests that look at the bytes on the wire.
enum WireJSON {
    static func encode(_ message: HostMessage) throws -> [UInt8] {
        Array(try JSONEncoder().encode(message))
    }

    static func decodeResponse(_ bytes: [UInt8]) throws -> PluginResponse {
        try JSONDecoder().decode(PluginResponse.self, from: Data(bytes))
    }

    /// The body as a JSON object, for checks of exact key names.
    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }
}
