import PluginProtocol
import Testing

@Suite("Message framing")
struct MessageFramingTests {
    @Test func frameIsLittleEndianLengthThenBody() {
        let body = Array(#"{"a":1}"#.utf8)
        #expect(MessageFraming.frame(body) == [7, 0, 0, 0, 0, 0, 0, 0] + body)
        let large = [UInt8](repeating: 0x20, count: 0x0102)
        #expect(Array(MessageFraming.frame(large).prefix(8)) == [0x02, 0x01, 0, 0, 0, 0, 0, 0])
    }

    @Test func readsConsecutiveMessagesDeliveredInSmallPieces() throws {
        let first = Array("first".utf8)
        let second = Array("second message".utf8)
        var input = BufferReader(MessageFraming.frame(first) + MessageFraming.frame(second), chunkSize: 3)
        #expect(try MessageFraming.readMessage(from: &input) == first)
        #expect(try MessageFraming.readMessage(from: &input) == second)
        #expect(try MessageFraming.readMessage(from: &input) == nil)
    }

    @Test func emptyInputIsTheNormalEnd() throws {
        var input = BufferReader([])
        #expect(try MessageFraming.readMessage(from: &input) == nil)
    }

    @Test func zeroLengthFrameEndsTheSession() throws {
        var input = BufferReader(lengthPrefix(0) + MessageFraming.frame(Array("x".utf8)))
        #expect(try MessageFraming.readMessage(from: &input) == nil)
    }

    @Test func shortLengthPrefixIsAnError() {
        var input = BufferReader([5, 0, 0])
        #expect(throws: FramingError.truncatedLength(received: 3)) {
            try MessageFraming.readMessage(from: &input)
        }
    }

    @Test func lengthLargerThanTheDataIsAnError() {
        var input = BufferReader(lengthPrefix(100) + Array("{}".utf8))
        #expect(throws: FramingError.truncatedBody(expected: 100, received: 2)) {
            try MessageFraming.readMessage(from: &input)
        }
    }

    @Test func absurdLengthIsRejectedWithoutAllocatingIt() {
        var input = BufferReader(lengthPrefix(UInt64.max) + Array("{}".utf8))
        #expect(throws: FramingError.tooLarge(length: UInt64.max, limit: MessageFraming.maximumMessageLength)) {
            try MessageFraming.readMessage(from: &input)
        }
    }

    @Test func writeMessageFramesThePayload() throws {
        var output = BufferWriter()
        try MessageFraming.writeMessage(Array("{}".utf8), to: &output)
        #expect(output.bytes == lengthPrefix(2) + Array("{}".utf8))
    }
}
