import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit

/// The SQLite store with known content that the operators' tools (the command line, the dashboard)
/// are tested on, made at `path` by component `app`, whose run has ended: two dead deliveries of
/// signal `bad` (an every-revision consumer whose handler throws), one pending delivery of signal `s`
/// (its first revision completed) whose payload holds `note` and a 64-bit integer, and a signal
/// kept for late consumers. Returns the consumers of `bad` and `s`.
package func makeOperatorsStore(
    at path: String, note: String
) async throws -> (dead: ConsumerID, receiving: ConsumerID) {
    let store = try SQLiteSignalStore(path: path)
    let center = try await SignalCenter.start(
        component: "app", store: store, registry: try makeRegistry(Recorder()),
        options: .init(retry: RetryPolicy(maximumAttempts: 1), deliversAutomatically: false))
    let failing = try await center.register(
        try Handler(id: "Sink.fail", registry: center.registry), for: "bad", delivery: .everyRevision)
    let receiving = try await center.register(
        try Handler(id: "Sink.receive", registry: center.registry), for: "s", delivery: .everyRevision)
    _ = try await center.post("bad")
    _ = try await center.post("bad")
    _ = try await center.post("s", payload: ["item": 1])
    _ = try await center.deliverDue()
    _ = try await center.post("s", payload: ["item": 2, "note": note, "large": Int64.max])
    _ = try await center.post("early", payload: ["item": 3], ifUnconsumed: .keep(for: .seconds(3_600)))
    try await center.stop()
    return (failing, receiving)
}

/// A store at `path` whose ordering key `conversation-1` is blocked: of three deliveries posted with
/// it (to a consumer whose handler throws), the first is dead and two wait behind it; a delivery of
/// key `conversation-2` is dead too, with none behind it.
package func makeBlockedKeyStore(at path: String) async throws -> ConsumerID {
    let store = try SQLiteSignalStore(path: path)
    let center = try await SignalCenter.start(
        component: "chat", store: store, registry: try makeRegistry(Recorder()),
        options: .init(retry: RetryPolicy(maximumAttempts: 1), deliversAutomatically: false))
    let sending = try await center.register(
        try Handler(id: "Sink.fail", registry: center.registry), for: "chat.send", delivery: .everyRevision)
    for key in ["conversation-1", "conversation-1", "conversation-2", "conversation-1"] {
        _ = try await center.post("chat.send", orderingKey: key)
    }
    _ = try await center.deliverDue()
    try await center.stop()
    return sending
}
