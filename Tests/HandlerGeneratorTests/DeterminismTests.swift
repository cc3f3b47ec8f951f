import Foundation
import HandlerGenerator
import HandlerScanner
import Testing

@Suite struct DeterminismTests {
    /// Shuffles with a seeded generator: the seed is in every failure's message, and
    /// `HANDLERKIT_TEST_SEED=<seed>` replays the same orders.
    @Test func shuffledInputGivesByteIdenticalOutput() throws {
        let generator = HandlerGenerator(moduleName: "Chat")
        let reference = try generator.generate(ScanResult(handlers: ModelFixtures.chat))
        let seed =
            ProcessInfo.processInfo.environment["HANDLERKIT_TEST_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        var random = SeededGenerator(seed: seed)
        var orders = Set<[String]>()
        for round in 0..<20 {
            let shuffled = ModelFixtures.chat.shuffled(using: &random)
            orders.insert(shuffled.map(\.id))
            #expect(
                try generator.generate(ScanResult(handlers: shuffled)) == reference,
                "round \(round), order \(shuffled.map(\.id)); replay with HANDLERKIT_TEST_SEED=\(seed)")
        }
        #expect(orders.count > 1, "the shuffles tried other orders; HANDLERKIT_TEST_SEED=\(seed)")
    }

    @Test func noTimestampOrVersionInHeader() throws {
        let text = try HandlerGenerator(moduleName: "Chat").generate(ScanResult(handlers: ModelFixtures.chat))
        let header = text.split(separator: "\n").prefix(6).joined(separator: "\n")
        #expect(header.contains("Do not edit"))
        #expect(!header.contains("20"), "no dates or version numbers in the header")
    }
}

/// SplitMix64: a generator whose sequence a seed fixes, so a failing shuffle can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
