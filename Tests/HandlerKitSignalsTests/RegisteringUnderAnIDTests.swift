import Foundation
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsTestKit
import Testing

@Suite("Signals: registering under an id")
struct RegisteringUnderAnIDTests {
    @Test(arguments: ["", String(repeating: "x", count: 257)])
    func anIDThatIsEmptyOrTooLongIsRefused(_ id: String) async throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let center = try await SignalCenter.start(
            component: "app", store: InMemorySignalStore(), registry: registry,
            options: .init(deliversAutomatically: false))
        await #expect(
            throws: SignalError.invalidConsumerID(id, reason: id.isEmpty ? "it is empty" : "it is over 256 bytes long")
        ) {
            try await center.register(
                try Handler(id: "Sink.receive", registry: registry), for: "job", id: ConsumerID(id))
        }
        #expect(try await center.consumers().isEmpty)
        let error = SignalError.invalidConsumerID(id, reason: "it is empty")
        #expect(error.description.hasSuffix("nothing was registered"))
        try await center.stop()
    }
}
