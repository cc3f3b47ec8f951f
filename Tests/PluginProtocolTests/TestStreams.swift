import PluginProtocol

/// An in-memory input that hands out at most `chunkSize` bytes per read, to exercise reassembly.
struct BufferReader: ByteReading {
    var bytes: [UInt8]
    var chunkSize = Int.max
    private var position = 0

    init(_ bytes: [UInt8], chunkSize: Int = Int.max) {
        self.bytes = bytes
        self.chunkSize = chunkSize
    }

    mutating func read(maxCount: Int) throws -> [UInt8] {
        let count = min(maxCount, chunkSize, bytes.count - position)
        defer { position += count }
        return Array(bytes[position..<position + count])
    }
}

/// An in-memory output; can be told to fail like a closed pipe.
struct BufferWriter: ByteWriting {
    struct Closed: Error {}
    var bytes: [UInt8] = []
    var isClosed = false

    mutating func write(_ newBytes: [UInt8]) throws {
        if isClosed { throw Closed() }
        bytes.append(contentsOf: newBytes)
    }
}

/// Little-endian 8-byte length prefix of `count`.
func lengthPrefix(_ count: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: count >> (8 * UInt64($0))) }
}
