/// A 256-entry table of byte classes, so the lexer's hot loops do one load per byte instead of a chain of
/// comparisons.
enum CharacterTable {
    /// ASCII letters, `_`, `$`, and every non-ASCII byte (Unicode identifiers are lexed byte-wise).
    static let identifierHead: UInt8 = 1
    /// `identifierHead` plus digits.
    static let identifierBody: UInt8 = 2
    /// `/ = - + ! * % < > & | ^ ~ ?`
    static let operatorCharacter: UInt8 = 4

    /// Allocated once and never freed; read-only after initialisation, so sharing it is safe.
    nonisolated(unsafe) static let table: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        table.initialize(repeating: 0, count: 256)
        for byte in 0..<256 {
            let value = UInt8(byte)
            var bits: UInt8 = 0
            let isLetter = (value | 0x20) &- UInt8(ascii: "a") < 26
            if isLetter || value == UInt8(ascii: "_") || value == UInt8(ascii: "$") || value >= 0x80 {
                bits |= identifierHead | identifierBody
            }
            if value &- UInt8(ascii: "0") < 10 { bits |= identifierBody }
            if "/=-+!*%<>&|^~?".utf8.contains(value) { bits |= operatorCharacter }
            table[byte] = bits
        }
        return UnsafePointer(table)
    }()
}
