#if os(macOS) || os(Linux)
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

extension ProcessChecks {
    static let order: [SignalStoreProcessChecks.Check] = [
        .init(
            name:
                "three worker processes of a work queue, killed at random points, run the deliveries of each ordering key one at a time and in order",
            body: orderedWorkers)
    ]

    /// One every-revision consumer of the work queue, 96 posts of its signal over 8 ordering keys (4
    /// at a time in bulk posts), and three worker processes that run up to four handlers at once,
    /// each killed at a random point. From the handlers' log: per key, no handler started before the
    /// one posted before it had returned, and none after a later one had started; and every delivery
    /// completed once.
    static func orderedWorkers(_ c: ProcessCheckContext) async throws -> String {
        let (posts, keys) = (96, 8)
        let consumers = try await c.register(1, prefix: "o", mode: "every", lifetime: "queue")
        guard let consumer = consumers.first else { throw c.failure("expected one consumer, found none") }
        let posted = try await c.probe([
            "post", "--component", "sync", "--signals", "1", "--prefix", "o", "--revisions", "\(posts)",
            "--ordering-keys", "\(keys)", "--bulk", "4",
        ])
        try c.expectSuccess(posted, "posting \(posts) revisions")
        let expected = Set((1...posts).map { "\(consumer)/\($0)" })

        let kills = try await c.consumeWithKills(workers: 3, latestKill: 6)
        try c.expect(kills >= 20, "expected at least 20 worker processes killed, found \(kills)")
        let (_, tally, handlerLog) = try await c.expectEachCompletedOnce(expected)
        let violations = handlerLog.orderViolations { "key\($0 % keys)" }
        try c.expect(
            violations.isEmpty,
            "expected the handlers of each ordering key to run one at a time in post order, found:\n"
                + violations.joined(separator: "\n"))
        return
            "ordered workers=3 keys=\(keys) kills=\(kills) deliveries=\(expected.count) lost=\(tally.lost.count) completed_twice=\(tally.completedTwice.count) order_violations=\(violations.count) started_after_completion=\(handlerLog.startedAfterCompletion.count)"
    }
}
#endif
