/// Converts byte offsets to 1-based lines and UTF-8 columns. Built only when a file has something to
/// report, so the fast path never counts lines.
///
/// `baseLine`/`baseColumn` shift positions for text that is an excerpt of a larger file (the compiler
/// plugin scans one declaration that starts at `baseLine:baseColumn` of the user's file).
final class LineTable {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let baseLine: Int
    private let baseColumn: Int
    private var lineStarts: [Int] = []

    init(bytes: UnsafeBufferPointer<UInt8>, baseLine: Int = 1, baseColumn: Int = 1) {
        self.bytes = bytes
        self.baseLine = baseLine
        self.baseColumn = baseColumn
    }

    private func build() {
        lineStarts = [0]
        let count = bytes.count
        var index = 0
        while index < count {
            let byte = bytes[index]
            if byte == 0x0A {
                lineStarts.append(index + 1)
            } else if byte == 0x0D, index + 1 >= count || bytes[index + 1] != 0x0A {
                lineStarts.append(index + 1)
            }
            index += 1
        }
    }

    /// The 1-based line and column of `offset`, shifted by the base position.
    func position(of offset: Int) -> (line: Int, column: Int) {
        if lineStarts.isEmpty { build() }
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        let column = offset - lineStarts[low] + 1
        if low == 0 { return (baseLine, baseColumn + column - 1) }
        return (baseLine + low, column)
    }
}
