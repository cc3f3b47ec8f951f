import Foundation
import PluginProtocol
import Testing

/// The built plugin executable as the compiler runs it: bytes in on standard input, bytes out on
/// standard output. Whatever arrives, it must end by itself without crashing.
@Suite("Built plugin executable on malformed input", .serialized)
struct PluginProcessTests {
    private func plugin() throws -> URL {
        try #require(
            ExternalTools.pluginExecutable(),
            "the built HandlerKitMacros executable was not found next to the test executable; build it (swift build --product HandlerKitMacros) or set HANDLERKIT_MACROS_TOOL"
        )
    }

    private func frame(_ json: String) -> [UInt8] {
        MessageFraming.frame(Array(json.utf8))
    }

    private func responses(_ bytes: [UInt8]) throws -> [PluginResponse] {
        var input = BufferReader(bytes)
        var result: [PluginResponse] = []
        while let body = try MessageFraming.readMessage(from: &input) {
            result.append(try WireJSON.decodeResponse(body))
        }
        return result
    }

    @Test func closedStandardInputIsANormalExit() async throws {
        let outcome = try await ChildProcess.run(try plugin())
        #expect(outcome.exitedCleanly)
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput.isEmpty)
    }

    @Test func answersTheCapabilityExchangeThenExitsAtEndOfInput() async throws {
        let outcome = try await ChildProcess.run(try plugin(), input: frame(PluginSessionTests.modernHello))
        #expect(outcome.exitedCleanly)
        #expect(outcome.status == 0)
        #expect(try responses(outcome.standardOutput) == [.getCapabilityResult(PluginCapability(protocolVersion: 7))])
    }

    @Test(arguments: [
        ("short length prefix", [UInt8]([3, 0, 0])),
        ("length larger than the data", lengthPrefix(4_096) + Array("{\"getCapability\":{}}".utf8)),
        ("huge length", lengthPrefix(UInt64.max) + [0x7B]),
    ])
    func brokenFramingExitsWithStatus1(name: String, bytes: [UInt8]) async throws {
        let outcome = try await ChildProcess.run(try plugin(), input: bytes)
        #expect(outcome.exitedCleanly, "\(name): \(outcome)")
        #expect(outcome.status == 1, "\(name)")
        #expect(outcome.standardError.contains("malformed input"), "\(name): \(outcome.standardError)")
    }

    @Test func invalidJSONAndUnknownKindsAreAnsweredThenExit0() async throws {
        let bytes =
            frame(PluginSessionTests.modernHello) + frame("{\"getCapability\":") + frame("[]")
            + frame(#"{"somethingNew":{"x":1}}"#)
        let outcome = try await ChildProcess.run(try plugin(), input: bytes)
        #expect(outcome.exitedCleanly)
        #expect(outcome.status == 0)
        let answers = try responses(outcome.standardOutput)
        #expect(answers.count == 4)
        #expect(answers.dropFirst().allSatisfy { $0.diagnostics.first?.severity == .error })
    }

    @Test func randomBytesNeverCrashOrHang() async throws {
        var generator = SplitMix64(seed: 0x4841_4E44_4C45_52)
        for round in 0..<8 {
            let count = Int(generator.next() % 2_048)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if round % 2 == 0 {
                // A plausible small length first, so the body is read and fails as JSON.
                bytes = lengthPrefix(UInt64(min(count, 64))) + bytes
            }
            let outcome = try await ChildProcess.run(try plugin(), input: bytes)
            #expect(outcome.exitedCleanly, "round \(round): \(outcome)")
            #expect([0, 1].contains(outcome.status), "round \(round)")
        }
    }

    @Test func closedOutputPipeDoesNotKillThePlugin() async throws {
        let bytes = frame(PluginSessionTests.modernHello) + frame(PluginSessionTests.modernHello)
        let outcome = try await ChildProcess.run(try plugin(), input: bytes, closeOutputEarly: true)
        #expect(outcome.exitedCleanly, "\(outcome)")
        #expect(outcome.status == 0)
    }
}

/// A small deterministic random generator, so failures can be replayed.
struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
