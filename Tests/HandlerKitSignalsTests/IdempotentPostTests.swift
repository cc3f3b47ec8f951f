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
        await #expect(throws: SignalError.invalidPostKey(signal: "job", kind: "idempotency key", reason: reason)) {
            try await center.post("job", idempotencyKey: key)
        }
        #expect(
            SignalError.invalidPostKey(signal: "job", kind: "idempotency key", reason: reason).description
                == "post of signal 'job': its idempotency key \(reason); nothing was posted. Give a key of 1 to 256 bytes"
        )
        try await center.stop()
    }
}
