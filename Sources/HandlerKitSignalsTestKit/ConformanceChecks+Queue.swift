import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The checks of a component's work queue (`ConsumerLifetime.queue`).
extension ConformanceChecks {
    static let queueChecks: [SignalStoreConformance.Check] = [
        .init(
            name:
                "a work queue's deliveries go to any run of its component that claims them, each completed once; other components do not claim them",
            body: queueSharedByTheRunsOfItsComponent),
        .init(
            name: "a work queue outlives the run that registered it and is never taken over as a run",
            body: queueIsNotARun),
        .init(
            name:
                "registering under an id that a consumer has returns it and stores nothing; a different consumer under it is refused",
            body: registeringUnderAnIdIsIdempotent),
        .init(
            name:
                "completions committed as a group complete each delivery still held, then claim the next ones, every one marked started",
            body: completionsCommittedAsAGroup),
        .init(
            name:
                "deliveries of one ordering key are claimed one at a time in the order posted, by any run; other keys and deliveries without one overtake them",
            body: orderingKeysKeepTheirOrder),
        .init(
            name:
                "a delivery waiting for a retry or dead holds its ordering key back, and only its key, until it is discarded",
            body: heldKeysWaitForTheirHead),
    ]

    static func orderingKeysKeepTheirOrder(_ c: ConformanceContext) async throws {
        let first = try await c.center("app")
        let second = try await c.center("app")
        let queue = WorkQueue.owner(of: "app")
        _ = try await first.register(
            try c.handler("Sink.receive"), for: "job", lifetime: .queue, delivery: .everyRevision)
        // Revisions 1…6 in the order posted: keys a, b, a, none, a, b.
        _ = try await first.post("job", payload: ["item": 1], orderingKey: "a")
        _ = try await first.post([
            SignalPost("job", payload: ["item": 2], orderingKey: "b"),
            SignalPost("job", payload: ["item": 3], orderingKey: "a"),
            SignalPost("job", payload: ["item": 4]),
            SignalPost("job", payload: ["item": 5], orderingKey: "a"),
            SignalPost("job", payload: ["item": 6], orderingKey: "b"),
        ])
        let heads = try await c.store.claim(
            ClaimRequest(runID: first.runID, owner: queue, limit: 10, startingFirst: false))
        try c.expectEqual(heads.deliveries.map(\.revision), [1, 2, 4], "the revisions a claim of ten took")
        // While each key's first delivery is claimed, nothing more is due, for any run.
        let none = try await c.store.claim(
            ClaimRequest(runID: second.runID, owner: queue, limit: 10, startingFirst: false))
        try c.expectEqual(none.deliveries.map(\.revision), [], "the revisions another run's claim took")
        let status = try await c.store.runStatus(of: second.runID, queue: queue)
        try c.expect(status.queueHasDeliveries, "the queue has deliveries")
        try c.expectEqual(status.queueNextDue, nil, "when the queue's next delivery is due, all of them held back")
        // The first run ends: its claims go back, and the second run runs all six, each key's in order.
        try await first.stop()
        try c.expectEqual(try await second.deliverDue(), 6, "deliveries the second run completed")
        let items = c.recorder.all.compactMap(\.item)
        try c.expectEqual(items.sorted(), Array(1...6), "items received, each once")
        try c.expectEqual(items.filter { [1, 3, 5].contains($0) }, [1, 3, 5], "the order of key a's items")
        try c.expectEqual(items.filter { [2, 6].contains($0) }, [2, 6], "the order of key b's items")
        try await second.stop()
    }

    static func heldKeysWaitForTheirHead(_ c: ConformanceContext) async throws {
        // Retried after an hour: the head of key k waits, the next delivery of k with it, key m runs.
        let retrying = try await failing(c, "retries", retries: true)
        let queue = WorkQueue.owner(of: "retries")
        _ = try await retrying.register(
            try c.handler("Sink.fail"), for: "flaky", lifetime: .queue, delivery: .everyRevision)
        for key in ["k", "k", "m"] { _ = try await retrying.post("flaky", orderingKey: key) }
        let before = Date()
        try c.expectEqual(try await retrying.deliverDue(), 0, "deliveries completed")
        let tried = c.recorder.all.map { $0.deliveryKey.split(separator: "/").last.map(String.init) ?? "" }
        try c.expectEqual(tried.sorted(), ["1", "3"], "the revisions tried")
        let status = try await c.store.runStatus(of: retrying.runID, queue: queue)
        let next = try c.require(status.queueNextDue, "when the queue's next delivery is due")
        try c.expect(
            next.timeIntervalSince(before) > 3_000,
            "the queue's next delivery is the retry an hour later, found \(next.timeIntervalSince(before)) s")
        try await retrying.stop()

        // Dead at the first failure: the dead head holds key k back until it is discarded.
        let failing = try await failing(c, "fails", retries: false)
        _ = try await failing.register(
            try c.handler("Sink.fail"), for: "bad", lifetime: .queue, delivery: .everyRevision)
        for key in ["k", "k", "m"] { _ = try await failing.post("bad", orderingKey: key) }
        let triedBefore = c.recorder.all.count
        try c.expectEqual(try await failing.deliverDue(), 0, "deliveries completed")
        try c.expectEqual(try await failing.deliverDue(), 0, "deliveries completed by a second pass")
        let dead = try await failing.deadDeliveries()
        try c.expectEqual(dead.map(\.revision).sorted(), [1, 3], "the revisions dead")
        try c.expectEqual(c.recorder.all.count - triedBefore, 2, "handlers run while the head of k is dead")
        let head = try c.require(dead.first { $0.revision == 1 }, "the dead head of key k")
        try c.expectEqual(try await c.store.apply(StorePlan.discard(head.key)), [1], "deliveries discarded")
        try c.expectEqual(try await failing.deliverDue(), 0, "deliveries completed once the head was discarded")
        try c.expectEqual(
            try await failing.deadDeliveries().map(\.revision).sorted(), [2, 3], "the revisions dead at the end")
        try await failing.stop()
    }

    static func queueSharedByTheRunsOfItsComponent(_ c: ConformanceContext) async throws {
        let first = try await c.center("app")
        let second = try await c.center("app", queueConcurrency: 2)
        let other = try await c.center("other")
        let queue = try await first.register(
            try c.handler("Sink.receive"), for: "job", lifetime: .queue, delivery: .everyRevision)
        let consumer = try c.require(try await first.consumers().first { $0.id == queue }, "the queue's consumer")
        try c.expectEqual(consumer.lifetime, .queue, "the consumer's lifetime")
        try c.expect(consumer.runID != first.runID, "the queue's consumer is not the run's, found \(consumer.runID)")
        _ = try await first.post((1...6).map { SignalPost("job", payload: ["item": $0]) })
        try c.expectEqual(try await other.deliverDue(), 0, "deliveries another component completed")
        // The first run claims two of them and holds them (as a process that died after its claim would).
        let held = try await c.store.claim(
            ClaimRequest(runID: first.runID, owner: WorkQueue.owner(of: "app"), limit: 2, startingFirst: false))
        try c.expectEqual(held.deliveries.count, 2, "deliveries the first run claimed")
        try c.expect(held.deliveries.allSatisfy { $0.runID == first.runID }, "claims of the first run")
        try c.expectEqual(try await second.deliverDue(), 4, "deliveries the second run completed")
        try c.expectEqual(
            try await second.deliverDue(), 0, "deliveries the second run completed while the first holds two")
        // The first run ends: its claims go back to the queue, and the second run completes them.
        try await first.stop()
        try c.expectEqual(try await second.deliverDue(), 2, "deliveries the second run completed after the first ended")
        try c.expectEqual(
            c.recorder.all.map { $0.item ?? 0 }.sorted(), Array(1...6), "items received, each once")
        try await second.stop()
        try await other.stop()
    }

    static func queueIsNotARun(_ c: ConformanceContext) async throws {
        let first = try await c.center("app")
        let queue = try await first.register(
            try c.handler("Sink.receive"), for: "job", lifetime: .queue, delivery: .everyRevision)
        let owner = try c.require(try await first.consumers().first { $0.id == queue }, "the queue's consumer").runID
        try await first.stop()
        let second = try await c.center("app")
        try c.expectEqual(second.takeover, TakeoverReport(), "what the next run took over")
        _ = try await second.post("job", payload: ["item": 1])
        let consumers = try await second.consumers()
        try c.expectEqual(consumers.map(\.id), [queue], "consumers of the component")
        try c.expectEqual(consumers.first?.runID, owner, "the owner of the queue's consumer")
        try c.expectEqual(try await second.deliverDue(), 1, "deliveries the next run completed")
        try c.expectEqual(try await second.takeOverDeadRuns(), TakeoverReport(), "what a look for dead runs took over")
        try await second.stop()
        try c.expectEqual(
            try await c.store.consumers(of: "app").map(\.id), [queue], "consumers after the last run stopped")
    }

    static func registeringUnderAnIdIsIdempotent(_ c: ConformanceContext) async throws {
        let first = try await c.center("app")
        let second = try await c.center("app")
        _ = try await first.post("job", payload: ["item": 1], ifUnconsumed: .keep(for: .seconds(600)))
        let id = ConsumerID("thumbs.make")
        let registered = try await first.register(
            try c.handler("Sink.receive"), for: "job", lifetime: .queue, delivery: .everyRevision, id: id)
        try c.expectEqual(registered, id, "the id of the consumer registered")
        let again = try await second.register(
            try c.handler("Sink.receive"), for: "job", lifetime: .queue, delivery: .everyRevision, id: id)
        try c.expectEqual(again, id, "the id registering again returned")
        try c.expectEqual(try await c.store.consumers(of: "app").map(\.id), [id], "consumers")
        try c.expectEqual(try await c.store.statistics().pendingDeliveries, 1, "deliveries of the kept post (one)")
        let refused = try await c.error("registering another consumer under the id") {
            _ = try await second.register(try c.handler("Sink.receive"), for: "other", id: id)
        }
        guard case .invalidConsumerID(let refusedID, let reason) = refused else {
            try c.expect(false, "expected invalidConsumerID, found \(refused)")
            return
        }
        try c.expect(
            refusedID == id.rawValue && reason.contains("signal 'job', not 'other'")
                && reason.contains("lifetime queue"),
            "the refusal names what differs, found: \(reason)")
        try c.expectEqual(try await c.store.consumers(of: "app").map(\.id), [id], "consumers after the refusal")
        try c.expectEqual(try await second.deliverDue(), 1, "deliveries completed")
        try await first.stop()
        try await second.stop()
    }

    static func completionsCommittedAsAGroup(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        _ = try await center.register(
            try c.handler("Sink.receive"), for: "job", lifetime: .queue, delivery: .everyRevision)
        _ = try await center.post((1...5).map { SignalPost("job", payload: ["item": $0]) })
        func request(limit: Int) -> ClaimRequest {
            ClaimRequest(
                runID: center.runID, owner: WorkQueue.owner(of: "app"), limit: limit, startingFirst: true,
                startingAll: true)
        }
        let first = try await c.store.claim(request(limit: 3))
        try c.expectEqual(first.deliveries.count, 3, "deliveries claimed")
        try c.expect(first.allStarted && first.firstStart == .started, "every claimed delivery marked started")
        // The second loses its claim before the group commits: it is given back for a retry.
        let lost = first.deliveries[1]
        try c.expect(
            try await c.store.release(lost, reason: "given back", retryAt: Date()), "the release of the second")
        let group = try await c.store.perform(
            .completeGroup(
                first.deliveries.map { ($0, false) }, thenClaiming: request(limit: 3),
                now: Date().timeIntervalSince1970))
        try c.expectEqual(group.completed, [true, false, true], "which deliveries of the group completed")
        let next = try c.require(group.claimed, "the claim that followed the completions")
        try c.expectEqual(
            next.deliveries.count, 3, "deliveries claimed after the completions (the two left and the one given back)")
        try c.expect(next.allStarted, "every delivery claimed after the completions marked started")
        try c.expect(
            next.deliveries.contains { $0.key == lost.key && $0.attempt == lost.attempt + 1 },
            "the delivery given back claimed again, for its next attempt")
        try c.expectEqual(try await c.store.statistics().completions, 2, "completions recorded")
        for delivery in next.deliveries {
            try c.expectEqual(try await c.store.start(delivery), .started, "marking \(delivery.key) again")
        }
        let last = try await c.store.perform(
            .completeGroup(
                next.deliveries.map { ($0, false) }, thenClaiming: request(limit: 3),
                now: Date().timeIntervalSince1970))
        try c.expectEqual(last.completed, [true, true, true], "which deliveries of the last group completed")
        try c.expectEqual(last.claimed?.deliveries.count, 0, "deliveries claimed once none was left")
        let statistics = try await c.store.statistics()
        try c.expect(
            statistics.completions == 5 && statistics.pendingDeliveries == 0 && statistics.claimedDeliveries == 0,
            "completions and open deliveries at the end, found \(statistics)")
        try await center.stop()
    }
}
