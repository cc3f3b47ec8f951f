@_spi(HandlerKitGenerated) import HandlerKit
import Testing

/// Documents with random edits (seeded, so every run sees the same ones): each is rebuilt, called and
/// written back, or refused with a `HandlerError` — never a crash, never another error.
@Suite("Mutated documents")
struct MutatedDocumentTests {
    /// SplitMix64: a small, fast generator whose sequence depends only on its seed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }

    static let seeds = [
        #"{"bound":{"count":4096,"flag":true,"name":"inbox-sync-service","ratio":0.125},"id":"Mail.fetched","version":1}"#,
        #"{"bound":{"count":-9223372036854775808,"flag":false,"name":"a\u00e9\"b","nested":{"bound":{"count":1,"flag":true,"name":"x"},"id":"Mail.fetched","version":1},"ratio":1e-300},"id":"Mail\u002efetched","invalidation":"Mail.fetched","version":1}"#,
    ].map { Array($0.utf8) }

    /// Bytes that matter to the reader: structure, numbers, literals, escapes, control and non-ASCII bytes.
    static let alphabet = Array(#"{}[]":,\-+.0123456789eEtrufalsn "#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xA9, 0xFF]

    @Test func everyMutationIsRebuiltOrATypedError() throws {
        let registry = HandlerRegistry()
        try registry.register(
            HandlerTable(
                module: "Mutations",
                handlers: [
                    HandlerDescriptor(
                        id: "Mail.fetched",
                        parameters: [
                            .required("name", String.self), .required("flag", Bool.self), .required("count", Int.self),
                            .optional("ratio", Double.self), .optional("nested", Handler.self),
                        ]
                    ) { arguments in
                        let _: String = try arguments.required("name")
                        let _: Int = try arguments.required("count")
                        let _: Double? = try arguments.optional("ratio")
                        let _: Handler? = try arguments.optional("nested")
                    }
                ]))
        var random = SeededGenerator(state: 2026_11_21)
        var rebuilt = 0
        var refused = 0
        for iteration in 0..<20_000 {
            var bytes = Self.seeds[iteration % Self.seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                let byte = Self.alphabet[Int.random(in: 0..<Self.alphabet.count, using: &random)]
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[position] = byte
                case 1: bytes.remove(at: position)
                case 2: bytes.insert(byte, at: position)
                default: bytes.insert(contentsOf: bytes[position..<min(bytes.count, position + 8)], at: position)
                }
            }
            do {
                let handler = try Handler(json: bytes, registry: registry)
                try handler.callSynchronously()
                // What was rebuilt writes a document that reads back to the same bytes.
                #expect(try Handler(json: handler.jsonData(), registry: registry).jsonData() == handler.jsonData())
                rebuilt += 1
            } catch is HandlerError {
                refused += 1
            }
        }
        // Both outcomes occur: the edits are neither all harmless nor all fatal.
        #expect(rebuilt > 100 && refused > 10_000, "rebuilt \(rebuilt), refused \(refused)")
    }
}
