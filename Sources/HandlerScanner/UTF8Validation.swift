/// Checks that bytes are text the scanner may read: valid UTF-8 without NUL bytes.
enum UTF8Validation {
    enum Problem: Equatable {
        /// A NUL byte at this offset: the file is binary.
        case nul(offset: Int)
        /// An invalid UTF-8 sequence starts at this offset.
        case invalid(offset: Int)
    }

    /// The first problem, or `nil` when the bytes are valid UTF-8 text. ASCII is checked eight bytes at a
    /// time.
    static func firstProblem(in bytes: UnsafeBufferPointer<UInt8>) -> Problem? {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return nil }
        var index = 0
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let ones: UInt64 = 0x0101_0101_0101_0101
        @inline(__always)
        func isPlainASCII(_ word: UInt64) -> UInt64 {
            // Non-zero when some byte has the high bit set or is zero.
            (word | ((word &- ones) & ~word)) & highBits
        }
        var slowUntil = 0
        while index < count {
            if index >= slowUntil {
                // 32 bytes at a time while they are all ASCII without NUL.
                while index + 32 <= count {
                    let pointer = UnsafeRawPointer(base + index)
                    let a = pointer.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
                    let b = pointer.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    let c = pointer.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
                    let d = pointer.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                    if isPlainASCII(a) | isPlainASCII(b) | isPlainASCII(c) | isPlainASCII(d) != 0 { break }
                    index += 32
                }
                slowUntil = index + 32
                if index >= count { break }
            }
            let byte = bytes[index]
            if byte == 0 { return .nul(offset: index) }
            if byte < 0x80 {
                index += 1
                continue
            }
            let length: Int
            let minimum: UInt32
            var scalar: UInt32
            switch byte {
            case 0xC2...0xDF:
                length = 2
                minimum = 0x80
                scalar = UInt32(byte & 0x1F)
            case 0xE0...0xEF:
                length = 3
                minimum = 0x800
                scalar = UInt32(byte & 0x0F)
            case 0xF0...0xF4:
                length = 4
                minimum = 0x10000
                scalar = UInt32(byte & 0x07)
            default:
                return .invalid(offset: index)
            }
            guard index + length <= count else { return .invalid(offset: index) }
            var next = index + 1
            while next < index + length {
                let continuation = bytes[next]
                guard continuation & 0xC0 == 0x80 else { return .invalid(offset: index) }
                scalar = scalar << 6 | UInt32(continuation & 0x3F)
                next += 1
            }
            // Overlong forms, UTF-16 surrogates and values past U+10FFFF are invalid.
            if scalar < minimum || (0xD800...0xDFFF).contains(scalar) || scalar > 0x10FFFF {
                return .invalid(offset: index)
            }
            index += length
        }
        return nil
    }
}
