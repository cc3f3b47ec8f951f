import Foundation
import HandlerKit
import HandlerKitSignals
import Testing

@Suite("Signals: posts with an ordering key")
struct OrderingKeyTests {
    @Test(arguments: ["", String(repeating: "k", count: 257)])
    func aKeyThatIsEmptyOrTooLongIsRefused(_ key: String) async throws {
        let store = InMemorySignalStore()
        let center = try await SignalCenter.start(
            component: "app", store: store, registry: HandlerRegistry(), options: .init(deliversAutomatically: false))
        let reason = key.isEmpty ? "is empty" : "is over 256 bytes long"
        let refusal = SignalError.invalidPostKey(signal: "job", kind: "ordering key", reason: reason)
        await #expect(throws: refusal) { try await center.post("job", orderingKey: key) }
        await #expect(throws: refusal) {
            try await center.post([SignalPost("job", orderingKey: "fine"), SignalPost("job", orderingKey: key)])
        }
        #expect(
            refusal.description
                == "post of signal 'job': its ordering key \(reason); nothing was posted. Give a key of 1 to 256 bytes")
        #expect(try await store.statistics().signals == 0, "nothing was stored")
        try await center.stop()
    }
}
