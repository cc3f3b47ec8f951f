/// Framing of the compiler's plugin messages: every message is an 8-byte little-endian unsigned
/// length followed by exactly that many bytes of UTF-8 JSON.

/// A source of bytes, such as a pipe from the compiler or a buffer in a test.
package protocol ByteReading {
    /// Reads at most `maxCount` bytes. Returns an empty array at the end of the input.
    mutating func read(maxCount: Int) throws -> [UInt8]
}

/// A destination for bytes, such as the pipe back to the compiler.
package protocol ByteWriting {
    /// Writes all of `bytes` or throws.
    mutating func write(_ bytes: [UInt8]) throws
}

/// Why a frame could not be read. Each one ends the session: the byte stream can no longer be trusted.
package enum FramingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended inside the 8-byte length prefix.
    case truncatedLength(received: Int)
    /// The input ended before the announced number of body bytes arrived.
    case truncatedBody(expected: UInt64, received: Int)
    /// The announced length is larger than any message the compiler sends.
    case tooLarge(length: UInt64, limit: Int)

    package var description: String {
        switch self {
        case .truncatedLength(let received):
            return "input ended inside a message's length prefix (\(received) of 8 bytes)"
        case .truncatedBody(let expected, let received):
            return "input ended inside a message body (\(received) of \(expected) bytes)"
        case .tooLarge(let length, let limit):
            return "message length \(length) exceeds the limit of \(limit) bytes"
        }
    }
}

/// Encodes and decodes the frames of the plugin protocol.
package enum MessageFraming {
    /// Size of the length prefix in bytes.
    package static let lengthPrefixSize = 8
    /// The largest message body accepted. Compiler messages carry one declaration and its context,
    /// far below this; anything larger is treated as a corrupt stream instead of being allocated.
    package static let maximumMessageLength = 256 * 1024 * 1024
    /// Bytes requested per read, so a lying length prefix cannot make the reader allocate its claim.
    static let readChunkSize = 64 * 1024

    /// Returns `payload` preceded by its 8-byte little-endian length.
    package static func frame(_ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lengthPrefixSize + payload.count)
        let length = UInt64(payload.count)
        for index in 0..<lengthPrefixSize {
            bytes.append(UInt8(truncatingIfNeeded: length >> (8 * UInt64(index))))
        }
        bytes.append(contentsOf: payload)
        return bytes
    }

    /// Reads the next message body.
    ///
    /// - Returns: the body, or `nil` when the input ended cleanly between messages or a zero length
    ///   (the protocol's explicit end of session) was read.
    /// - Throws: ``FramingError`` for a truncated or oversized frame, or what `input` throws.
    package static func readMessage<Input: ByteReading>(from input: inout Input) throws -> [UInt8]? {
        let prefix = try readUpTo(lengthPrefixSize, from: &input)
        if prefix.isEmpty {
            return nil
        }
        guard prefix.count == lengthPrefixSize else {
            throw FramingError.truncatedLength(received: prefix.count)
        }
        var length: UInt64 = 0
        for (index, byte) in prefix.enumerated() {
            length |= UInt64(byte) << (8 * UInt64(index))
        }
        if length == 0 {
            return nil
        }
        guard length <= UInt64(maximumMessageLength) else {
            throw FramingError.tooLarge(length: length, limit: maximumMessageLength)
        }
        let body = try readUpTo(Int(length), from: &input)
        guard body.count == Int(length) else {
            throw FramingError.truncatedBody(expected: length, received: body.count)
        }
        return body
    }

    /// Writes one framed message.
    package static func writeMessage<Output: ByteWriting>(_ payload: [UInt8], to output: inout Output) throws {
        try output.write(frame(payload))
    }

    /// Reads until `count` bytes arrived or the input ended; returns what arrived.
    private static func readUpTo<Input: ByteReading>(_ count: Int, from input: inout Input) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let chunk = try input.read(maxCount: min(count - bytes.count, readChunkSize))
            if chunk.isEmpty {
                break
            }
            bytes.append(contentsOf: chunk)
        }
        return bytes
    }
}
