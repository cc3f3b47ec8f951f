/// Byte classes tested eight bytes at a time in one 64-bit word (SWAR), for the lexer's longest runs:
/// identifiers and the text of string literals. Each function returns a mask with the high bit of every
/// byte that has the property set, and nothing else; the tests are exact per byte (no carry crosses a
/// byte), so the first byte with the property is `mask.trailingZeroBitCount / 8` in a little-endian load.
enum ByteWords {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let high: UInt64 = 0x8080_8080_8080_8080
    private static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// The eight bytes at `pointer`, the first in the lowest bits.
    @inline(__always)
    static func load(_ pointer: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
    }

    /// Bytes that differ from `byte`.
    @inline(__always)
    static func differing(_ word: UInt64, from byte: UInt8) -> UInt64 {
        let difference = word ^ (ones &* UInt64(byte))
        return (((difference & low7) &+ low7) | difference) & high
    }

    /// Bytes equal to any of the four.
    @inline(__always)
    static func equal(_ word: UInt64, to a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> UInt64 {
        ~(differing(word, from: a) & differing(word, from: b) & differing(word, from: c) & differing(word, from: d))
            & high
    }

    /// Bytes `b` with `lower < b < upper` (both bounds excluded; `upper` at most 0x80). Bytes from 0x80
    /// up are never in the range.
    @inline(__always)
    static func between(_ word: UInt64, _ lower: UInt8, _ upper: UInt8) -> UInt64 {
        let seven = word & low7
        let belowUpper = (ones &* (127 + UInt64(upper))) &- seven
        let aboveLower = seven &+ ones &* (127 - UInt64(lower))
        return belowUpper & aboveLower & ~word & high
    }

    /// Bytes that continue an identifier, as `CharacterTable.identifierBody`: ASCII letters, digits,
    /// `_`, `$`, and every non-ASCII byte.
    @inline(__always)
    static func identifierBody(_ word: UInt64) -> UInt64 {
        let letters = between(word | 0x2020_2020_2020_2020, 0x60, 0x7B)  // a-z, A-Z folded
        let digits = between(word, 0x2F, 0x3A)
        let underscore = ~differing(word, from: UInt8(ascii: "_")) & high
        let dollar = ~differing(word, from: UInt8(ascii: "$")) & high
        return (word & high) | letters | digits | underscore | dollar
    }
}
