/// Converts between the two ways positions are spoken of: the scanner's 1-based line and UTF-8 column
/// in the file, and the protocol's 0-based UTF-8 offset in the file.
///
/// A snippet's text starts at a known place (its location: offset, line, column). The map records where
/// each line of the text starts, so a line and column inside the snippet turn into an offset.
/// Line breaks are `\n`, `\r\n` and a lone `\r`, as in Swift source.
struct SourcePositionMap {
    /// File offset of the snippet's first byte.
    let baseOffset: Int
    /// Line and column of the snippet's first byte.
    let baseLine: Int
    let baseColumn: Int
    /// Snippet-relative byte index of the start of each line; the first is 0.
    private let lineStarts: [Int]
    /// Snippet-relative byte index just past the content of each line (before its line break).
    private let lineEnds: [Int]

    init(text: String, offset: Int, line: Int, column: Int) {
        baseOffset = offset
        baseLine = line
        baseColumn = column
        var starts = [0]
        var ends: [Int] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                ends.append(index)
                if byte == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                    index += 1
                }
                starts.append(index + 1)
            }
            index += 1
        }
        ends.append(bytes.count)
        lineStarts = starts
        lineEnds = ends
    }

    /// The snippet-relative byte index of a file line and column, clamped into the snippet: a line
    /// before it maps to its start, after it to its end, a column past a line's end to that end.
    func localIndex(line: Int, column: Int) -> Int {
        let lineIndex = line - baseLine
        guard lineIndex >= 0 else { return 0 }
        guard lineIndex < lineStarts.count else { return lineEnds[lineEnds.count - 1] }
        let firstColumn = lineIndex == 0 ? baseColumn : 1
        let index = lineStarts[lineIndex] + max(0, column - firstColumn)
        return min(index, lineEnds[lineIndex])
    }

    /// The file offset of a file line and column (clamped like ``localIndex(line:column:)``).
    func offset(line: Int, column: Int) -> Int {
        baseOffset + localIndex(line: line, column: column)
    }
}
