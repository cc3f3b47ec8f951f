import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The checks of what a post writes, as the core decides it.
extension ConformanceChecks {
    static let postingChecks: [SignalStoreConformance.Check] = [
        .init(
            name: "a once consumer receives one revision: a later post before its delivery makes none for it",
            body: onceConsumerReceivesOneRevision),
        .init(
            name:
                "a post without a consumer or a keep removes the signal's record (revisions start again at 1); one with either keeps it",
            body: signalRecordOfAPost),
    ]

    static func onceConsumerReceivesOneRevision(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let once = try await center.register(try c.handler("Sink.receive"), for: "job")
        _ = try await center.register(try c.handler("Sink.receive"), for: "job", delivery: .everyRevision)
        try c.expectEqual(try await center.post("job", payload: ["item": 1]).deliveries, 2, "deliveries of revision 1")
        let second = try await center.post("job", payload: ["item": 2])
        try c.expect(
            second.revision == 2 && second.deliveries == 1,
            "revision 2 for the every-revision consumer only, found \(second)")
        try c.expectEqual(try await center.deliverDue(), 3, "deliveries completed")
        try c.expectEqual(
            c.recorder.all.filter { $0.deliveryKey.hasPrefix(once.rawValue) }.map(\.revision), [1],
            "revisions the once consumer received")
        try c.expectEqual(try await c.store.consumers(of: "app").count, 1, "consumers (the once consumer ended)")
        try await center.stop()
    }

    static func signalRecordOfAPost(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        // Kept without a consumer: the record is stored and the revisions go on.
        for revision in 1...2 {
            let kept = try await center.post("s", payload: ["item": revision], ifUnconsumed: .keep(for: .seconds(600)))
            try c.expect(kept.revision == revision && kept.kept, "kept revision \(revision), found \(kept)")
        }
        try c.expectEqual(try await c.store.statistics().signals, 1, "signal records while kept")
        // Neither consumed nor kept: the record is removed, and the revisions start again.
        let dropped = try await center.post("s", payload: ["item": 3])
        try c.expect(
            dropped.revision == 3 && !dropped.kept && dropped.hadNoConsumer,
            "revision 3, not kept, without a consumer, found \(dropped)")
        try c.expectEqual(try await c.store.statistics().signals, 0, "signal records after a post nobody takes")
        try c.expectEqual(try await center.post("s", payload: ["item": 4]).revision, 1, "the next revision")

        // With a consumer, a post that is not kept stores the record, without a keep: the revisions go
        // on, and a consumer that registers later receives nothing of it.
        _ = try await center.register(try c.handler("Sink.receive"), for: "s", delivery: .everyRevision)
        for revision in 1...2 {
            try c.expectEqual(
                try await center.post("s", payload: ["item": revision]).revision, revision, "revision with a consumer")
        }
        try c.expectEqual(try await c.store.statistics().signals, 1, "signal records with a consumer")
        _ = try await center.register(try c.handler("Sink.receive"), for: "s")
        try c.expectEqual(try await center.deliverDue(), 2, "deliveries completed (none for the late consumer)")
        try c.expectEqual(c.recorder.all.compactMap(\.item), [1, 2], "items received")
        try await center.stop()
    }
}
