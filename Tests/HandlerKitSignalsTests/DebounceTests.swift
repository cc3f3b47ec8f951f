import Foundation
import HandlerKit
import HandlerKitSignals
import Testing

@Suite("Signals: debounced posts")
struct DebounceTests {
    static let refusals: [(Debounce, String)] = [
        (Debounce(key: "", window: .seconds(1)), "its debounce key is empty"),
        (
            Debounce(key: String(repeating: "k", count: 257), window: .seconds(1)),
            "its debounce key is over 256 bytes long"
        ),
        (Debounce(key: "k", window: .zero), "its debounce window 0.0 seconds is not above zero"),
        (Debounce(key: "k", window: .seconds(-1)), "its debounce window -1.0 seconds is not above zero"),
        (Debounce(key: "k", window: .seconds(400 * 86_400)), "is not above zero and at most a year"),
        (
            Debounce(key: "k", window: .seconds(10), maximumDelay: .seconds(5)),
            "its debounce's maximum delay 5.0 seconds is shorter than its window 10.0 seconds"
        ),
    ]

    @Test(arguments: refusals.indices)
    func aDebounceAStoreCannotKeepIsRefusedAndNothingIsPosted(_ index: Int) async throws {
        let (debounce, expected) = Self.refusals[index]
        let store = InMemorySignalStore()
        let center = try await SignalCenter.start(
            component: "app", store: store, registry: HandlerRegistry(), options: .init(deliversAutomatically: false))
        let single = await #expect(throws: SignalError.self) { try await center.post("refresh", debounce: debounce) }
        let bulk = await #expect(throws: SignalError.self) {
            try await center.post([SignalPost("fine"), SignalPost("refresh", debounce: debounce)])
        }
        for error in [single, bulk] {
            let text = error?.description ?? ""
            #expect(text.hasPrefix("post of signal 'refresh': "), "\(text)")
            #expect(text.contains(expected), "\(text)")
            #expect(text.contains("nothing was posted"), "\(text)")
        }
        #expect(try await store.statistics().signals == 0, "nothing was stored")
        try await center.stop()
    }
}
