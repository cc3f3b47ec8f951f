import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The checks of a store's primitives under the core: plans made step by step, holding and ending
/// consumers, the runs a store lists, the start fence, claims that start the first, interrupted claims.
extension ConformanceChecks {
    static func plansStepByStep(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        _ = try await center.post("early", payload: ["item": 7], ifUnconsumed: .keep(for: .seconds(600)))
        let now = Date().timeIntervalSince1970
        func consumer(_ signal: String, _ mode: DeliveryMode) throws -> ConsumerRecord {
            ConsumerRecord(
                id: ConsumerID(UUID().uuidString), signalID: signal, component: "app", runID: center.runID,
                lifetime: .durable, mode: mode, handler: [UInt8](try c.handler("Sink.receive").jsonData()),
                handlerID: "Sink.receive")
        }
        let kept = try consumer("early", .once)
        try c.expectEqual(
            try await c.store.apply(.register(kept, now: now)), [1, 1, 1],
            "counts of registering a once consumer for a kept signal (stored, delivered, served)")
        let late = try consumer("later", .once)
        try c.expectEqual(
            try await c.store.apply(.register(late, now: now)), [1, 0, 0],
            "counts of registering a once consumer for a signal not kept")
        let every = try consumer("early", .everyRevision)
        try c.expectEqual(
            try await c.store.apply(.register(every, now: now)), [1, 1],
            "counts of registering an every-revision consumer for a kept signal")
        // The served once consumer takes no further revision; the other two do.
        try c.expectEqual(
            try await center.post("early", payload: ["item": 8]).deliveries, 1, "deliveries of revision 2")
        try c.expectEqual(try await center.post("later", payload: ["item": 9]).deliveries, 1, "deliveries to `later`")
        try c.expectEqual(try await c.store.statistics().pendingDeliveries, 4, "pending deliveries")

        try c.expectEqual(
            try await c.store.apply(.removeConsumer(every.id, now: now)), [2, 1, 0],
            "counts of removing the every-revision consumer (its 2 pending deliveries, itself, no signal record)")
        try c.expectEqual(
            try await c.store.apply(.removeConsumer(every.id, now: now)), [0, 0, 0], "counts of removing it again")
        try c.expectEqual(
            try await c.store.apply(.requeue(DeliveryKey("no such key"), now: now)), [0],
            "counts of requeueing a key that is not dead")
        try c.expectEqual(try await center.deliverDue(), 2, "deliveries completed")
        try c.expectEqual(c.recorder.all.compactMap(\.item).sorted(), [7, 9], "items received")
        try await center.stop()
        try c.expectEqual(try await c.store.statistics(), .only(completions: 2), "what the store holds at the end")
    }

    static func holdingAConsumer(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let now = Date().timeIntervalSince1970
        let holder = "a run that holds consumers"
        // A consumer that is gone leaves its dead delivery behind, which is requeued: pending, owned
        // by this run, and moved by no hold of its consumer.
        let gone = try await center.register(try c.handler("Sink.receive"), for: "gone")
        _ = try await center.post("gone", payload: ["item": 1])
        let parked = try c.require(try await c.store.claim(for: center.runID, limit: 1).first, "the delivery to `gone`")
        try c.expect(try await c.store.release(parked, reason: "parked", retryAt: nil), "its delivery is parked dead")
        try c.expect(try await center.remove(gone), "the consumer `gone` is removed")
        try c.expect(try await center.requeue(parked.key), "its dead delivery is requeued")
        try c.expectEqual(
            try await c.store.apply(.hold(gone, for: holder)), [0, 0],
            "counts of holding a consumer that is gone (its requeued delivery stays)")
        try c.expectEqual(try await c.store.runStatus(of: holder).openDeliveries, 0, "deliveries of the holder")

        let held = try await center.register(try c.handler("Sink.receive"), for: "held", delivery: .everyRevision)
        _ = try await center.post("held", payload: ["item": 2])
        _ = try await center.post("held", payload: ["item": 3])
        try c.expectEqual(
            try await c.store.apply(.hold(held, for: holder)), [1, 2],
            "counts of holding a consumer with two pending deliveries")
        try c.expectEqual(try await c.store.runStatus(of: holder).openDeliveries, 2, "deliveries of the holder")
        try c.expectEqual(
            try await c.store.consumers(of: "app").first { $0.id == held }?.runID, holder, "the held consumer's run")
        try c.expectEqual(
            try await c.store.apply(.hold(held, for: center.runID)), [1, 2], "counts of holding it for this run again")
        try c.expectEqual(try await center.deliverDue(), 3, "deliveries completed (the requeued one among them)")
        try c.expectEqual(c.recorder.all.compactMap(\.item).sorted(), [1, 2, 3], "items received")
        try c.expectEqual(
            try await c.store.apply(.removeConsumer(held, now: now)), [0, 1, 1],
            "counts of removing the held consumer (no delivery left, itself, its signal record)")
        try await center.stop()
    }

    static func completionEndsConsumerWhenTold(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let once = try await center.register(try c.handler("Sink.receive"), for: "one")
        let every = try await center.register(try c.handler("Sink.receive"), for: "all", delivery: .everyRevision)
        _ = try await center.post("one", payload: ["item": 1])
        _ = try await center.post("all", payload: ["item": 2])
        let claimed = try await c.store.claim(for: center.runID, limit: 10)
        try c.expectEqual(claimed.map(\.consumerID), [once, every], "consumers of the claimed deliveries")
        try c.expectEqual(claimed.map(\.mode), [.once, .everyRevision], "the modes the claims name")
        // Told not to end it, a completion leaves even a once consumer in place; told to, it ends it.
        try c.expect(
            try await c.store.complete(claimed[0], endingConsumer: false, thenStarting: nil).completed,
            "the first claim completes")
        try c.expectEqual(try await c.store.consumers(of: "app").count, 2, "consumers")
        try c.expect(
            try await c.store.complete(claimed[1], endingConsumer: true, thenStarting: nil).completed,
            "the second claim completes")
        try c.expectEqual(try await c.store.consumers(of: "app").map(\.id), [once], "consumers")
        var statistics = try await c.store.statistics()
        try c.expect(
            statistics.signals == 1 && statistics.completions == 2,
            "the ended consumer's signal record is gone, found \(statistics)")
        try c.expect(try await center.remove(once), "the once consumer is removed")
        statistics = try await c.store.statistics()
        try c.expect(
            statistics.signals == 0 && statistics.consumers == 0, "nothing left but completions, found \(statistics)")
        try await center.stop()
    }

    static func runsAndStatus(_ c: ConformanceContext) async throws {
        let first = try await c.center("app")
        let second = try await c.center("app")
        _ = try await first.register(try c.handler("Sink.receive"), for: "mine")
        _ = try await second.post("mine", payload: ["item": 1])
        var runs = try await c.store.runs(of: "app")
        try c.expectEqual(runs.recorded, [first.runID, second.runID], "recorded runs")
        try c.expectEqual(runs.namedByConsumers, [first.runID], "runs named by consumers")
        try c.expectEqual(runs.owningDeliveries, [first.runID], "runs owning deliveries")
        try c.expectEqual(try await c.store.runs(of: "other").recorded, [], "runs of another component")
        let plan = StorePlan.retire(
            first.runID, takenOverBy: second.runID, retry: RetryPolicy(), now: Date().timeIntervalSince1970)
        try c.expect(
            try await c.store.takeOver(first.runID, of: "app", applying: plan) == nil, "a live run is not taken over")

        var status = try await c.store.runStatus(of: first.runID)
        try c.expectEqual(status.openDeliveries, 1, "open deliveries")
        try c.expect(
            status.nextDue.map { $0.timeIntervalSinceNow < 1 } ?? false, "the delivery is due now, found \(status)")
        let claimed = try c.require(try await c.store.claim(for: first.runID, limit: 1).first, "a claimed delivery")
        status = try await c.store.runStatus(of: first.runID)
        try c.expect(status.openDeliveries == 1 && status.nextDue == nil, "one claimed, none pending, found \(status)")
        let retryAt = Date().addingTimeInterval(3_600)
        try c.expect(try await c.store.release(claimed, reason: "later", retryAt: retryAt), "released")
        status = try await c.store.runStatus(of: first.runID)
        try c.expect(
            status.openDeliveries == 1 && abs((status.nextDue ?? .distantPast).timeIntervalSince(retryAt)) < 0.01,
            "pending until the retry time, found \(status)")

        try await first.stop()
        runs = try await c.store.runs(of: "app")
        try c.expectEqual(runs.recorded, [second.runID], "recorded runs after the first ended")
        try c.expectEqual(runs.namedByConsumers, [first.runID], "its durable consumer still names it")
        let report = try await second.takeOverDeadRuns()
        try c.expectEqual(report.endedRuns, [first.runID], "runs that ended cleanly, whose deliveries moved")
        try c.expectEqual(
            try await c.store.runStatus(of: second.runID).openDeliveries, 1, "open deliveries of the taker")
        try c.expectEqual(try await second.takeOverDeadRuns(), TakeoverReport(), "nothing is left to take over")
        try await second.stop()
    }

    static func startIsFenced(_ c: ConformanceContext) async throws {
        let first = try await c.center("app", retry: RetryPolicy(firstDelay: .milliseconds(1)))
        for signal in ["a", "b", "c"] {
            _ = try await first.register(try c.handler("Sink.receive"), for: SignalID(signal))
        }
        for signal in ["a", "b", "c"] { _ = try await first.post(SignalID(signal), payload: ["item": 1]) }
        let claimed = try await c.store.claim(for: first.runID, limit: 10)
        try c.expectEqual(claimed.count, 3, "claimed deliveries")
        try c.expectEqual(claimed.map(\.previousAttemptCrashed), [false, false, false], "crashed before")

        try c.expectEqual(try await c.store.start(claimed[0]), .started, "starting a held claim")
        try c.expectEqual(try await c.store.start(claimed[0]), .started, "starting it again")
        var stale = claimed[1]
        stale.attempt += 1
        try c.expectEqual(try await c.store.start(stale), .claimLost, "starting another attempt")
        var otherRun = claimed[1]
        otherRun.runID = "another run"
        try c.expectEqual(try await c.store.start(otherRun), .runTakenOver, "starting for a run that is not recorded")
        // A completion marks the next delivery started as `start` does.
        try c.expectEqual(
            try await c.store.complete(claimed[0], endingConsumer: true, thenStarting: claimed[1]),
            CompletionOutcome(completed: true, next: .started), "completing and starting the next")
        try c.expectEqual(try await c.store.start(claimed[0]), .claimLost, "starting it after its completion")
        try c.expectEqual(
            try await c.store.complete(claimed[0], endingConsumer: true, thenStarting: stale),
            CompletionOutcome(completed: false, next: .claimLost), "completing again, starting a stale attempt")

        // The run ends, and the next one takes it over with the claims it held: none of them starts.
        try await first.stop()
        let second = try await c.center("app")
        try c.expectEqual(second.takeover.endedRuns, [first.runID], "runs that ended cleanly, whose deliveries moved")
        for delivery in claimed[1...] {
            try c.expectEqual(
                try await c.store.start(delivery), .runTakenOver, "starting \(delivery.key) after the takeover")
        }
        try await Task.sleep(for: .milliseconds(20))  // the started one counts its attempt: after the delay
        try c.expectEqual(try await second.deliverDue(), 2, "deliveries completed by the taker")
        try c.expectEqual(c.recorder.all.count, 2, "handler runs")
        try await second.stop()
    }

    static func claimStartsTheFirst(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        for signal in ["a", "b", "c"] {
            _ = try await center.register(try c.handler("Sink.receive"), for: SignalID(signal))
        }
        let empty = try await c.store.claimStartingFirst(for: center.runID, limit: 10)
        try c.expectEqual(empty, ClaimedBatch(deliveries: [], firstStart: nil), "a claim with nothing due")
        for signal in ["a", "b", "c"] { _ = try await center.post(SignalID(signal), payload: ["item": 1]) }
        func interrupt() async throws {
            let attempts = InterruptedAttempts(
                maximumAttempts: 5, retryAt: Date().addingTimeInterval(-1).timeIntervalSince1970,
                reason: "died during attempt ")
            _ = try await c.store.apply(
                StorePlan(
                    "interrupting the claims of run \(center.runID)",
                    steps: [.interruptClaims(run: center.runID, attempts: attempts)]))
        }

        // `a` crashes once: it runs last from then on.
        var claimed = try await c.store.claim(for: center.runID, limit: 10)
        try c.expectEqual(claimed.map(\.signalID), ["a", "b", "c"], "claimed deliveries")
        let keys = claimed.map(\.key)
        try c.expectEqual(try await c.store.start(claimed[0]), .started, "starting a")
        try await interrupt()

        let batch = try await c.store.claimStartingFirst(for: center.runID, limit: 10)
        try c.expectEqual(batch.deliveries.map(\.key), [keys[1], keys[2], keys[0]], "the running order")
        try c.expectEqual(batch.firstStart, .started, "the first one's start")
        try c.expectEqual(try await c.store.start(batch.deliveries[0]), .started, "starting it again")
        // Only `b` was started: interrupted, it alone counts its attempt as crashed.
        try await interrupt()
        claimed = try await c.store.claim(for: center.runID, limit: 10)
        let crashed = Dictionary(uniqueKeysWithValues: claimed.map { ($0.key, $0.previousAttemptCrashed) })
        try c.expectEqual(crashed[keys[1]], true, "b's previous attempt crashed")
        try c.expectEqual(crashed[keys[2]], false, "c's previous attempt was not started")
        try c.expectEqual(claimed.first { $0.key == keys[2] }?.attempt, 1, "c's attempt")
        try await center.stop()
    }

    static func reclaimingTakesLostClaims(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let other = try await c.center("app")
        for signal in ["a", "b", "c"] {
            _ = try await center.register(try c.handler("Sink.receive"), for: SignalID(signal))
        }
        _ = try await other.register(try c.handler("Sink.receive"), for: "d")
        for signal in ["a", "b", "c", "d"] { _ = try await center.post(SignalID(signal), payload: ["item": 1]) }
        let claimed = try await c.store.claim(for: center.runID, limit: 2)
        try c.expectEqual(claimed.map(\.signalID), ["a", "b"], "claimed deliveries")
        let others = try await c.store.claim(for: other.runID, limit: 10)
        try c.expectEqual(others.map(\.signalID), ["d"], "the other run's claim")

        // A plain claim takes only what is due: `c`.
        let plain = try await c.store.claim(ClaimRequest(runID: center.runID, limit: 10, startingFirst: false))
        try c.expectEqual(plain.deliveries.map(\.signalID), ["c"], "a plain claim")
        // `a` is in progress; `b` and `c` were lost: taken back, next attempt. `d` is another run's.
        let request = ClaimRequest(
            runID: center.runID, limit: 10, startingFirst: true, inProgress: [claimed[0].rowID], reclaimingLost: true)
        let batch = try await c.store.claim(request)
        try c.expectEqual(batch.deliveries.map(\.signalID), ["b", "c"], "the claims taken back")
        try c.expectEqual(batch.deliveries.map(\.attempt), [2, 2], "their attempts")
        try c.expectEqual(batch.firstStart, .started, "the first one's start")
        try c.expectEqual(try await c.store.start(claimed[1]), .claimLost, "the lost claim's attempt")
        try c.expectEqual(try await c.store.start(claimed[0]), .started, "the claim in progress")
        try c.expectEqual(try await c.store.start(others[0]), .started, "the other run's claim")
        try await other.stop()
        try await center.stop()
    }

    static func interruptedClaimsCountStartedAttempts(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        for signal in ["a", "b"] {
            _ = try await center.register(try c.handler("Sink.receive"), for: SignalID(signal))
        }
        for signal in ["a", "b"] { _ = try await center.post(SignalID(signal), payload: ["item": 1]) }
        func interrupt(maximumAttempts: Int, retryIn seconds: Double) async throws -> Int {
            let attempts = InterruptedAttempts(
                maximumAttempts: maximumAttempts, retryAt: Date().addingTimeInterval(seconds).timeIntervalSince1970,
                reason: "died during attempt ")
            let counts = try await c.store.apply(
                StorePlan(
                    "interrupting the claims of run \(center.runID)",
                    steps: [.interruptClaims(run: center.runID, attempts: attempts)]))
            return counts.first ?? -1
        }

        // `a` is started, `b` is not: `a` counts its attempt and waits for the retry time (an hour);
        // `b` is due again at once, its attempt not counted.
        var claimed = try await c.store.claim(for: center.runID, limit: 10)
        let keys = claimed.map(\.key)
        try c.expectEqual(claimed.map(\.attempt), [1, 1], "attempts of the first claim")
        try c.expectEqual(try await c.store.start(claimed[0]), .started, "starting a")
        try c.expectEqual(try await interrupt(maximumAttempts: 5, retryIn: 3_600), 2, "claims interrupted")
        claimed = try await c.store.claim(for: center.runID, limit: 10)
        try c.expectEqual(claimed.map(\.key), Array(keys.suffix(1)), "claimed again at once: b only")
        try c.expectEqual(claimed.map(\.attempt), [1], "b's attempt (the interrupted one did not count)")
        try c.expectEqual(claimed.map(\.previousAttemptCrashed), [false], "b never crashed")

        // `b` started and interrupted counts its attempt and says that it crashed.
        try c.expectEqual(try await c.store.start(claimed[0]), .started, "starting b")
        try c.expectEqual(try await interrupt(maximumAttempts: 5, retryIn: -1), 1, "claims interrupted")
        claimed = try await c.store.claim(for: center.runID, limit: 10)
        try c.expectEqual(claimed.map(\.attempt), [2], "b's attempt after a crashed one")
        try c.expectEqual(claimed.map(\.previousAttemptCrashed), [true], "b's previous attempt crashed")

        // At the maximum of attempts, a started attempt interrupted makes the delivery dead.
        try c.expectEqual(try await c.store.start(claimed[0]), .started, "starting b again")
        try c.expectEqual(try await interrupt(maximumAttempts: 2, retryIn: -1), 1, "claims interrupted")
        let dead = try await c.store.deadDeliveries(of: "app")
        try c.expectEqual(dead.map(\.key), Array(keys.suffix(1)), "the dead delivery")
        try c.expectEqual(dead.map(\.attempts), [2], "attempts of the dead delivery")
        try c.expectEqual(dead.map(\.reason), ["died during attempt 2"], "the dead delivery's reason")
        let statistics = try await c.store.statistics()
        try c.expect(
            statistics.pendingDeliveries == 1 && statistics.claimedDeliveries == 0,
            "a waits for its retry, found \(statistics)")
        try await center.stop()
    }
}
