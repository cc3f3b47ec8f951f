import Testing

@testable import PluginProtocol

@Suite("Line and column to offset")
struct SourcePositionMapTests {
    // A snippet that starts at offset 100, line 4, column 15 (after `enum Carbons {`).
    let map = SourcePositionMap(
        text: "\n    @handler\n    static func é() { }", offset: 100, line: 4, column: 15)

    @Test func firstLineStartsAtTheSnippetsColumn() {
        #expect(map.offset(line: 4, column: 15) == 100)
    }

    @Test func laterLinesStartAtColumnOne() {
        #expect(map.offset(line: 5, column: 5) == 105)
        #expect(map.offset(line: 6, column: 5) == 118)
        // UTF-8 columns: `é` (column 17) is two bytes, so `(` is at column 19.
        #expect(map.offset(line: 6, column: 19) == 132)
    }

    @Test func positionsOutsideTheSnippetAreClamped() {
        #expect(map.offset(line: 1, column: 1) == 100)
        #expect(map.offset(line: 5, column: 200) == 113)
        #expect(map.offset(line: 99, column: 1) == 100 + "\n    @handler\n    static func é() { }".utf8.count)
    }

    @Test func carriageReturnLineBreaks() {
        let crlf = SourcePositionMap(text: "a\r\nb\rc", offset: 0, line: 1, column: 1)
        #expect(crlf.offset(line: 2, column: 1) == 3)
        #expect(crlf.offset(line: 3, column: 1) == 5)
    }
}
