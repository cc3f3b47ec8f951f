import Foundation
import PluginProtocol
import Testing

@Suite("Plugin loop over byte streams")
struct PluginLoopTests {
    private func frame(_ json: String) -> [UInt8] {
        MessageFraming.frame(Array(json.utf8))
    }

    /// Splits the output back into decoded responses.
    private func responses(in bytes: [UInt8]) throws -> [PluginResponse] {
        var input = BufferReader(bytes)
        var result: [PluginResponse] = []
        while let body = try MessageFraming.readMessage(from: &input) {
            result.append(try WireJSON.decodeResponse(body))
        }
        return result
    }

    private func run(_ bytes: [UInt8], chunkSize: Int = Int.max) -> (PluginLoop.Ending, [UInt8]) {
        var session = PluginSession()
        var input = BufferReader(bytes, chunkSize: chunkSize)
        var output = BufferWriter()
        let ending = PluginLoop.run(session: &session, input: &input, output: &output)
        return (ending, output.bytes)
    }

    @Test func conversationEndsNormallyWhenTheCompilerClosesThePipe() throws {
        let (ending, output) = run(frame(PluginSessionTests.modernHello), chunkSize: 5)
        #expect(ending == .endOfInput)
        #expect(ending.exitStatus == 0)
        #expect(try responses(in: output) == [.getCapabilityResult(PluginCapability(protocolVersion: 7))])
    }

    @Test func closedPipeBeforeAnyMessageIsTheNormalEnd() {
        let (ending, output) = run([])
        #expect(ending == .endOfInput)
        #expect(output.isEmpty)
    }

    @Test func shortLengthPrefixEndsTheLoopWithoutAnswering() throws {
        let (ending, output) = run(frame(PluginSessionTests.modernHello) + [1, 0, 0])
        #expect(ending == .malformedInput(FramingError.truncatedLength(received: 3).description))
        #expect(ending.exitStatus == 1)
        #expect(try responses(in: output).count == 1)
    }

    @Test func lengthLargerThanTheDataEndsTheLoop() {
        let (ending, _) = run(lengthPrefix(1_000) + Array(PluginSessionTests.modernHello.utf8))
        #expect(
            ending
                == .malformedInput(
                    FramingError.truncatedBody(expected: 1_000, received: PluginSessionTests.modernHello.utf8.count)
                        .description))
    }

    @Test func hugeLengthEndsTheLoopImmediately() {
        let (ending, output) = run(lengthPrefix(1 << 62) + [0x7B])
        guard case .malformedInput = ending else {
            Issue.record("ended with \(ending)")
            return
        }
        #expect(output.isEmpty)
    }

    @Test func invalidJSONIsAnsweredAndTheLoopGoesOn() throws {
        let bytes =
            frame(PluginSessionTests.modernHello) + frame("{not json") + frame(#"{"brandNew":{}}"#)
            + frame(PluginSessionTests.modernHello)
        let (ending, output) = run(bytes)
        #expect(ending == .endOfInput)
        let answers = try responses(in: output)
        #expect(answers.count == 4)
        #expect(answers[1].diagnostics.first?.severity == .error)
        #expect(answers[2].diagnostics.first?.message.contains("brandNew") == true)
        #expect(answers[3] == .getCapabilityResult(PluginCapability(protocolVersion: 7)))
    }

    @Test func closedOutputEndsTheLoop() {
        var session = PluginSession()
        var input = BufferReader(frame(PluginSessionTests.modernHello) + frame(PluginSessionTests.modernHello))
        var output = BufferWriter(isClosed: true)
        let ending = PluginLoop.run(session: &session, input: &input, output: &output)
        guard case .outputFailed = ending else {
            Issue.record("ended with \(ending)")
            return
        }
        #expect(ending.exitStatus == 0)
    }

    @Test func zeroLengthFrameEndsTheSession() throws {
        let (ending, output) = run(lengthPrefix(0) + frame(PluginSessionTests.modernHello))
        #expect(ending == .endOfInput)
        #expect(output.isEmpty)
    }
}
