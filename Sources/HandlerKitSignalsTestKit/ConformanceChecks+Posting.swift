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
        .init(
            name:
                "a delayed post's deliveries start not before its time, also after the consumer's run stopped and another took it over",
            body: delayedPostStartsOnTime),
        .init(
            name: "a kept delayed post reaches a consumer that registers later not before its time",
            body: keptDelayedPostWaitsForItsTime),
        .init(
            name:
                "a bulk post makes each post in its order, a later one of a signal its next revision",
            body: bulkPostInOrder),
        .init(
            name: "posts and bulk posts of one signal made at once each make their own revision, the first one too",
            body: postsAtOnce),
        .init(
            name:
                "a post with an idempotency key another post took answers that post's result and stores nothing; another key posts",
            body: idempotentPost),
        .init(
            name:
                "a bulk post makes each post with an idempotency key once, the others each time, and refuses a bad key before storing anything",
            body: idempotentBulkPost),
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

    static func delayedPostStartsOnTime(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        _ = try await center.register(try c.handler("Sink.receive"), for: "later", delivery: .everyRevision)
        // One due in an hour (never in this check), one in a second.
        let far = try await center.post("later", payload: ["item": 1], notBefore: Date().addingTimeInterval(3_600))
        try c.expectEqual(far.deliveries, 1, "deliveries of the post due in an hour")
        let soon = Date().addingTimeInterval(1)
        _ = try await center.post("later", payload: ["item": 2], notBefore: soon)
        let early = try await center.deliverDue()
        // A pass that ended before the second post's time claimed before it: it must have started neither.
        if Date() < soon { try c.expectEqual(early, 0, "deliveries started before their posts' times") }
        try c.expectEqual(try await center.openDeliveries(), 2 - early, "open deliveries")

        // The consumer's run stops; the next run of the component takes its deliveries over.
        try await center.stop()
        let next = try await c.center("app")
        try await deliverUntilReceived(c, next, item: 2)
        try c.expect(Date() >= soon, "the delayed delivery ran before its time")
        try c.expectEqual(c.recorder.all.compactMap(\.item), [2], "items received")
        try c.expectEqual(try await next.openDeliveries(), 1, "open deliveries (the one due in an hour)")
        try await next.stop()
    }

    static func keptDelayedPostWaitsForItsTime(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let soon = Date().addingTimeInterval(1)
        let kept = try await center.post(
            "kept", payload: ["item": 3], ifUnconsumed: .keep(for: .seconds(600)), notBefore: soon)
        try c.expect(kept.kept && kept.hadNoConsumer, "kept without a consumer, found \(kept)")
        _ = try await center.register(try c.handler("Sink.receive"), for: "kept")
        let early = try await center.deliverDue()
        if Date() < soon { try c.expectEqual(early, 0, "deliveries started before the post's time") }
        try await deliverUntilReceived(c, center, item: 3)
        try c.expect(Date() >= soon, "the kept delivery ran before its post's time")
        try await center.stop()
    }

    static func bulkPostInOrder(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let every = try await center.register(try c.handler("Sink.receive"), for: "a", delivery: .everyRevision)
        let once = try await center.register(try c.handler("Sink.receive"), for: "b")
        let results = try await center.post([
            SignalPost("a", payload: ["item": 1]), SignalPost("b", payload: ["item": 2]),
            SignalPost("a", payload: ["item": 3]), SignalPost("b", payload: ["item": 4]),
            SignalPost("none", payload: ["item": 5], ifUnconsumed: .keep(for: .seconds(600))),
        ])
        try c.expectEqual(results.map(\.revision), [1, 1, 2, 2, 1], "revisions")
        try c.expectEqual(results.map(\.deliveries), [1, 1, 1, 0, 0], "deliveries (the once consumer takes one)")
        try c.expect(
            results[4].kept && results[4].hadNoConsumer, "the last post kept without a consumer, found \(results[4])")
        try c.expectEqual(try await center.deliverDue(), 3, "deliveries completed")
        try c.expectEqual(
            c.recorder.all.map { "\($0.deliveryKey) \($0.item ?? 0)" },
            ["\(every.rawValue)/1 1", "\(once.rawValue)/1 2", "\(every.rawValue)/2 3"], "deliveries in posting order")
        try c.expectEqual(try await center.post([]), [], "the results of an empty bulk post")
        let more = try await center.post([
            SignalPost("gone"), SignalPost("gone"), SignalPost("b", payload: ["item": 6]),
            SignalPost("none", payload: ["item": 7], ifUnconsumed: .keep(for: .seconds(600))),
            SignalPost("a", payload: ["item": 8]),
        ])
        try c.expectEqual(
            more.map(\.revision), [1, 1, 1, 2, 3], "revisions of the second bulk post (the once consumer ended)")
        try c.expectEqual(more.map(\.deliveries), [0, 0, 0, 0, 1], "deliveries of the second bulk post")

        // More signals than one read takes and more deliveries than one statement makes.
        let many = (0..<1_200).map { (index: Int) -> SignalPost in
            index.isMultiple(of: 2)
                ? SignalPost("a", payload: ["item": index])
                : SignalPost(SignalID("x\(index)"), ifUnconsumed: .keep(for: .seconds(600)))
        }
        let manyResults = try await center.post(many)
        try c.expectEqual(
            manyResults.map(\.revision),
            (0..<1_200).map { (index: Int) in index.isMultiple(of: 2) ? 4 + index / 2 : 1 },
            "revisions of 1,200 posts")
        try c.expectEqual(
            try await c.store.statistics().pendingDeliveries, 601, "deliveries waiting after 600 more posts of a")
        let claimed = try await c.store.claim(for: center.runID, limit: 3)
        try c.expectEqual(
            claimed.map(\.key.rawValue), [3, 4, 5].map { "\(every.rawValue)/\($0)" }, "the first deliveries claimed")
        try await center.stop()
    }

    static func postsAtOnce(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let others = [try await c.center("api"), try await c.center("web")]
        try await center.register(try c.handler("Sink.receive"), for: "job", delivery: .everyRevision)
        let revisions = try await withThrowingTaskGroup(of: [Int].self) { group in
            for (index, poster) in ([center] + others).enumerated() {
                group.addTask {
                    var made: [Int] = []
                    for round in 0..<10 {
                        if (index + round).isMultiple(of: 2) {
                            made.append(try await poster.post("job", payload: ["item": round]).revision)
                        } else {
                            made += try await poster.post(
                                (0..<5).map { SignalPost("job", payload: ["item": round * 10 + $0]) }
                            ).map(\.revision)
                        }
                    }
                    return made
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        try c.expectEqual(revisions.sorted(), Array(1...revisions.count), "revisions made by three posters at once")
        try c.expectEqual(
            try await c.store.statistics().pendingDeliveries, revisions.count, "deliveries made by three posters")
        for each in [center] + others { try await each.stop() }
    }

    static func idempotentPost(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let other = try await c.center("api")
        try await center.register(try c.handler("Sink.receive"), for: "job", delivery: .everyRevision)
        let first = try await other.post("job", payload: ["item": 1], idempotencyKey: "request-1")
        try c.expect(first.revision == 1 && first.deliveries == 1, "the first post, found \(first)")
        let again = try await other.post("job", payload: ["item": 2], idempotencyKey: "request-1")
        try c.expectEqual(again, first, "the answer to the same key")
        let fromElsewhere = try await center.post("job", payload: ["item": 2], idempotencyKey: "request-1")
        try c.expectEqual(fromElsewhere, first, "the answer to the same key from another center")
        try c.expectEqual(
            try await c.store.statistics().pendingDeliveries, 1, "deliveries after three posts of one key")
        let second = try await other.post("job", payload: ["item": 3], idempotencyKey: "request-2")
        try c.expectEqual(second.revision, 2, "the revision another key posts")
        try c.expectEqual(try await center.deliverDue(), 2, "deliveries completed")
        try c.expectEqual(c.recorder.all.map { $0.item ?? 0 }, [1, 3], "items received")
        // Two days later the keys are forgotten (as a run's start forgets them), and the key posts again.
        let later = Date().timeIntervalSince1970 + 2 * SignalCenter.idempotencyKeyRetention.seconds
        try c.expectEqual(
            try await c.store.apply(StorePlan("forgetting keys", steps: [.forgetPostKeys(now: later)])), [2],
            "keys forgotten")
        let afterwards = try await other.post("job", payload: ["item": 4], idempotencyKey: "request-1")
        try c.expectEqual(afterwards.revision, 3, "the revision a forgotten key posts")
        try await center.stop()
        try await other.stop()
    }

    /// Runs `center`'s delivery passes until a handler received `item` (at most a minute).
    private static func deliverUntilReceived(_ c: ConformanceContext, _ center: SignalCenter, item: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !c.recorder.all.contains(where: { $0.item == item }) {
            try c.expect(ContinuousClock.now < deadline, "item \(item) was not delivered within a minute")
            if try await center.deliverDue() == 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
    }

    static func idempotentBulkPost(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        try await center.register(try c.handler("Sink.receive"), for: "job", delivery: .everyRevision)
        let posts = [
            SignalPost("job", payload: ["item": 1], idempotencyKey: "request-1"),
            SignalPost("job", payload: ["item": 2]),
            SignalPost("job", payload: ["item": 3], idempotencyKey: "request-3"),
            // The same key again in the same bulk post: it answers the first's result.
            SignalPost("job", payload: ["item": 4], idempotencyKey: "request-1"),
        ]
        let first = try await center.post(posts)
        try c.expectEqual(first.map(\.revision), [1, 2, 3, 1], "revisions of the first bulk post")
        try c.expectEqual(first.map(\.deliveries), [1, 1, 1, 1], "deliveries each post answered")
        try c.expectEqual(try await c.store.statistics().pendingDeliveries, 3, "deliveries stored")
        // Posted again (a client's retry): only the post without a key is made again.
        let again = try await center.post(posts)
        try c.expectEqual(again.map(\.revision), [1, 4, 3, 1], "revisions of the bulk post made again")
        try c.expectEqual(try await c.store.statistics().pendingDeliveries, 4, "deliveries stored after it")
        let refused = try await c.error("a bulk post with an empty key") {
            _ = try await center.post([SignalPost("job", payload: ["item": 5]), SignalPost("job", idempotencyKey: "")])
        }
        try c.expectEqual(
            refused, .invalidPostKey(signal: "job", kind: "idempotency key", reason: "is empty"), "the refusal")
        try c.expectEqual(try await c.store.statistics().pendingDeliveries, 4, "deliveries after the refusal")
        try c.expectEqual(try await center.deliverDue(), 4, "deliveries completed")
        try c.expectEqual(c.recorder.all.map { $0.item ?? 0 }, [1, 2, 3, 2], "items received")
        try await center.stop()
    }
}
