import Foundation
import HandlerKit
import HandlerKitSignals
import Testing

@Suite("Signals: posts with an idempotency key")
struct IdempotentPostTests {
    @Test(arguments: ["", String(repeating: "k", count: 257)])
    func aKeyThatIsEmptyOrTooLongIsRefused(_ key: String) async throws {
        let center = try await SignalCenter.start(
            component: "app", store: InMemorySignalStore(), registry: HandlerRegistry(),
            options: .init(deliversAutomatically: false))
        let reason = key.isEmpty ? "is empty" : "is over 256 bytes long"
        await #expect(throws: SignalError.invalidIdempotencyKey(signal: "job", reason: reason)) {
            try await center.post("job", idempotencyKey: key)
        }
        #expect(
            SignalError.invalidIdempotencyKey(signal: "job", reason: reason).description.hasSuffix("nothing was posted")
        )
        try await center.stop()
    }
}
