import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The checks of `SignalStoreConformance`, each on a new, empty store.
enum ConformanceChecks {
    static let all: [SignalStoreConformance.Check] = [
        .init(name: "posting without a consumer is reported and stores nothing", body: postingWithoutAConsumer),
        .init(
            name: "a once consumer receives the payload and the delivery key, then everything is cleaned up",
            body: onceConsumer),
        .init(
            name: "an every-revision consumer receives each revision in order until removed",
            body: everyRevisionConsumer),
        .init(name: "a signal kept for a late consumer is delivered when it registers", body: keptSignal),
        .init(
            name: "a delivery's key is the core's `<consumer>/<revision>`, for a kept revision and a posted one",
            body: deliveryKeys),
        .init(
            name: "run-tied consumers end with their run; durable ones are delivered by the next run", body: lifetimes),
        .init(name: "a live run of the same component is not taken over", body: liveRunNotTakenOver),
        .init(
            name: "a running process takes over a run of its component that ended, when asked", body: takeOverWhenAsked),
        .init(
            name: "a throwing handler is retried with backoff, then parked dead, and can be requeued",
            body: retriesThenDead),
        .init(
            name: "an unknown handler id is parked dead, not dropped, and runs when requeued where it exists",
            body: unknownHandler),
        .init(
            name: "a payload value of the wrong type is parked dead, naming the argument and the types",
            body: wrongPayload),
        .init(name: "async handlers run, and consumers of other components are left alone", body: componentsApart),
        .init(
            name: "completing or releasing a delivery is guarded by the same run and attempt", body: guardedCompletion),
        .init(name: "a center delivers by itself when a signal is posted", body: automaticDelivery),
        .init(
            name: "a store applies the core's plans step by step and counts the rows of each step",
            body: plansStepByStep),
        .init(
            name: "holding a consumer moves it and its pending deliveries; one that is gone moves nothing",
            body: holdingAConsumer),
        .init(
            name: "a claim names the consumer's mode; completing ends the consumer only when told to",
            body: completionEndsConsumerWhenTold),
        .init(
            name: "a store lists the runs its records, consumers and deliveries name, and reports a run's status",
            body: runsAndStatus),
        .init(
            name:
                "starting a delivery succeeds for a held claim only: not after completion, takeover or for a stale attempt",
            body: startIsFenced),
        .init(
            name: "interrupted claims count only started attempts: retried after the delay, dead at the maximum",
            body: interruptedClaimsCountStartedAttempts),
        .init(
            name: "a claim that starts the first marks the delivery that runs first, crashed ones last, and no other",
            body: claimStartsTheFirst),
        .init(name: "bad input is a typed error naming what and where, and stores nothing", body: badInput),
    ]

    static func postingWithoutAConsumer(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let result = try await center.post("nobody", payload: ["item": 1])
        try c.expect(
            result.hadNoConsumer && result.deliveries == 0 && !result.kept, "no consumer and not kept, found \(result)")
        try c.expectEqual(try await c.store.statistics().signals, 0, "signal records")
        try await center.stop()
    }

    static func onceConsumer(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let signal = SignalID()
        let consumer = try await center.register(try c.handler("Sink.receive"), for: signal)
        let result = try await center.post(signal, payload: ["item": 42, "note": "done", "unused": true])
        try c.expect(result.revision == 1 && result.deliveries == 1, "revision 1 with 1 delivery, found \(result)")
        try c.expectEqual(try await center.deliverDue(), 1, "deliveries completed")
        let key = "\(consumer.rawValue)/1"
        try c.expectEqual(
            c.recorder.all, [Received(handler: "Sink.receive", item: 42, note: "done", deliveryKey: key, revision: 1)],
            "handler runs")
        try c.expectEqual(try await c.store.completions(of: DeliveryKey(key)).count, 1, "completions of \(key)")
        let statistics = try await c.store.statistics()
        try c.expect(
            statistics.consumers == 0 && statistics.signals == 0 && statistics.pendingDeliveries == 0,
            "no consumer, signal or delivery left, found \(statistics)")

        // The consumer is gone: a second post has no consumer and nothing runs again.
        try c.expect(
            try await center.post(signal, payload: ["item": 43]).hadNoConsumer, "the second post has no consumer")
        try c.expectEqual(try await center.deliverDue(), 0, "deliveries after the consumer ended")
        try c.expectEqual(c.recorder.all.count, 1, "handler runs")
        try await center.stop()
    }

    static func everyRevisionConsumer(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let consumer = try await center.register(
            try c.handler("Sink.receive"), for: "progress", delivery: .everyRevision)
        for item in 1...3 {
            try c.expectEqual(try await center.post("progress", payload: ["item": item]).revision, item, "revision")
        }
        try c.expectEqual(try await center.deliverDue(), 3, "deliveries completed")
        try c.expectEqual(c.recorder.all.map(\.item), [1, 2, 3], "items received")
        try c.expectEqual(c.recorder.all.map(\.revision), [1, 2, 3], "revisions received")
        try c.expect(try await center.remove(consumer), "the consumer is removed")
        try c.expect(try await center.post("progress", payload: ["item": 4]).hadNoConsumer, "no consumer after removal")
        try c.expectEqual(try await c.store.statistics().signals, 0, "signal records")
        try await center.stop()
    }

    static func keptSignal(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let kept = try await center.post("early", payload: ["item": 7], ifUnconsumed: .keep(for: .seconds(600)))
        try c.expect(kept.hadNoConsumer && kept.kept, "kept without a consumer, found \(kept)")
        let dropped = try await center.post("reported", payload: ["item": 8])
        try c.expect(dropped.hadNoConsumer && !dropped.kept, "reported and not kept, found \(dropped)")

        _ = try await center.register(try c.handler("Sink.receive"), for: "early")
        _ = try await center.register(try c.handler("Sink.receive"), for: "reported")
        try c.expectEqual(try await center.deliverDue(), 1, "deliveries completed")
        try c.expectEqual(c.recorder.all.map(\.item), [7], "items received")
        try await center.stop()
    }

    /// A store that builds keys in its SQL (for a revision it learns only as the statement runs) must
    /// build the key `DeliveryKey(consumer:revision:)` makes.
    static func deliveryKeys(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let signal = SignalID()
        _ = try await center.post(signal, payload: ["item": 1], ifUnconsumed: .keep(for: .seconds(600)))
        _ = try await center.post(signal, payload: ["item": 2], ifUnconsumed: .keep(for: .seconds(600)))
        let consumer = try await center.register(try c.handler("Sink.receive"), for: signal, delivery: .everyRevision)
        _ = try await center.post(signal, payload: ["item": 3])
        try c.expectEqual(try await center.deliverDue(), 2, "deliveries completed")
        try c.expectEqual(
            c.recorder.all.map(\.deliveryKey),
            [2, 3].map { DeliveryKey(consumer: consumer.rawValue, revision: $0).rawValue },
            "the keys of the kept revision 2 and of the posted revision 3")
        try await center.stop()
    }

    static func lifetimes(_ c: ConformanceContext) async throws {
        let first = try await c.center("app")
        _ = try await first.register(try c.handler("Sink.receive"), for: "tied", lifetime: .run)
        let durable = try await first.register(try c.handler("Sink.receive"), for: "durable")
        try await first.stop()
        try c.expectEqual(try await c.store.statistics().consumers, 1, "consumers after the run ended")

        let poster = try await c.center("sync")
        try c.expect(try await poster.post("tied", payload: ["item": 1]).hadNoConsumer, "the run-tied consumer is gone")
        try c.expectEqual(
            try await poster.post("durable", payload: ["item": 2]).deliveries, 1, "deliveries to the durable consumer")
        try c.expectEqual(
            try await poster.deliverDue(), 0, "deliveries by another component (it never delivers the app's consumers)")

        let second = try await c.center("app")
        try c.expectEqual(second.takeover.deadRuns, [], "runs taken over (the first ended cleanly)")
        try c.expectEqual(second.takeover.endedRuns, [first.runID], "runs that ended cleanly, whose consumers moved")
        try c.expectEqual(second.takeover.adoptedConsumers, 1, "consumers adopted")
        try c.expectEqual(try await second.deliverDue(), 1, "deliveries completed by the next run")
        try c.expectEqual(c.recorder.all.map(\.deliveryKey), ["\(durable.rawValue)/1"], "delivery keys received")
        try await second.stop()
        try await poster.stop()
        try c.expectEqual(try await c.store.statistics(), .only(completions: 1), "what the store holds at the end")
    }

    static func liveRunNotTakenOver(_ c: ConformanceContext) async throws {
        let first = try await c.center("app")
        _ = try await first.register(try c.handler("Sink.receive"), for: "mine")
        let second = try await c.center("app")
        try c.expect(second.takeover.deadRuns.isEmpty, "no run taken over, found \(second.takeover.deadRuns)")
        _ = try await second.post("mine", payload: ["item": 1])
        try c.expectEqual(
            try await second.deliverDue(), 0, "deliveries by the other run (the registering run is alive: it delivers)")
        try c.expectEqual(try await first.deliverDue(), 1, "deliveries by the registering run")
        try await first.stop()
        try await second.stop()
    }

    static func takeOverWhenAsked(_ c: ConformanceContext) async throws {
        let survivor = try await c.center("app")
        let ending = try await c.center("app")
        _ = try await ending.register(try c.handler("Sink.receive"), for: "adopt")
        _ = try await survivor.post("adopt", payload: ["item": 1])
        try c.expect(
            try await survivor.takeOverDeadRuns().deadRuns.isEmpty, "nothing taken over while the other run is alive")
        try await ending.stop()
        let report = try await survivor.takeOverDeadRuns()
        try c.expect(
            report.deadRuns.isEmpty && report.endedRuns == [ending.runID] && report.adoptedConsumers == 1,
            "the ended run's consumer adopted (not a dead run's takeover), found \(report)")
        try c.expectEqual(try await survivor.deliverDue(), 1, "deliveries completed")
        try await survivor.stop()
    }

    static func retriesThenDead(_ c: ConformanceContext) async throws {
        let retry = RetryPolicy(maximumAttempts: 3, firstDelay: .milliseconds(1), maximumDelay: .milliseconds(2))
        let center = try await c.center("app", retry: retry)
        let consumer = try await center.register(try c.handler("Sink.fail"), for: "flaky")
        _ = try await center.post("flaky")
        func deliverUntilSettled() async throws {
            while try await center.openDeliveries() > 0 {
                _ = try await center.deliverDue()
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        try await deliverUntilSettled()
        try c.expectEqual(c.recorder.all.count, 3, "attempts")
        let dead = try await center.deadDeliveries()
        try c.expectEqual(dead.count, 1, "dead deliveries")
        try c.expectEqual(dead.first?.key, DeliveryKey("\(consumer.rawValue)/1"), "the dead delivery's key")
        try c.expectEqual(dead.first?.attempts, 3, "the dead delivery's attempts")
        try c.expectEqual(
            dead.first?.reason, "handler 'Sink.fail' threw on attempt 3: the test handler fails on purpose",
            "the reason")
        try c.expectEqual(
            try await c.store.statistics().consumers, 1, "consumers (it stays while its delivery is dead)")

        try c.expect(try await center.requeue(DeliveryKey("\(consumer.rawValue)/1")), "the dead delivery is requeued")
        try c.expect(try await center.requeue(DeliveryKey("no such key")) == false, "an unknown key is not requeued")
        try await deliverUntilSettled()
        try c.expectEqual(c.recorder.all.count, 6, "attempts (requeued with a fresh count)")
        try c.expectEqual(try await center.deadDeliveries().map(\.attempts), [3], "attempts of the dead delivery")
        try await center.stop()
    }

    static func unknownHandler(_ c: ConformanceContext) async throws {
        let registering = try await c.center("app")
        _ = try await registering.register(try c.handler("Sink.receive"), for: "s")
        try await registering.stop()
        // The next process of the component lacks the handler's module.
        let lacking = try await c.center("app", registry: HandlerRegistry())
        _ = try await lacking.post("s", payload: ["item": 5])
        try c.expectEqual(try await lacking.deliverDue(), 0, "deliveries without the handler")
        let dead = try c.require(try await lacking.deadDeliveries().first, "a dead delivery")
        try c.expectEqual(dead.handlerID, "Sink.receive", "the dead delivery's handler id")
        try c.expectEqual(
            dead.reason,
            "delivery '\(dead.key.rawValue)': its handler 'Sink.receive' is not registered in this process; the delivery is intact: requeue it from a process that registers the handler",
            "the reason")
        try await lacking.stop()

        let complete = try await c.center("app")
        try c.expect(try await complete.requeue(dead.key), "the dead delivery is requeued")
        try c.expectEqual(try await complete.deliverDue(), 1, "deliveries completed where the handler exists")
        try c.expectEqual(c.recorder.all.map(\.item), [5], "items received")
        try await complete.stop()
    }

    static func wrongPayload(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        _ = try await center.register(try c.handler("Sink.receive"), for: "typed")
        _ = try await center.register(try c.handler("Sink.receive"), for: "missing")
        _ = try await center.post("typed", payload: ["item": "not a number"])
        _ = try await center.post("missing", payload: ["note": "no item"])
        try c.expectEqual(try await center.deliverDue(), 0, "deliveries completed")
        let reasons = try await center.deadDeliveries().map(\.reason)
        try c.expectEqual(reasons.count, 2, "dead deliveries")
        try c.expectEqual(
            reasons.first,
            "payload of signal 'typed', value 'item': revision 1 does not fit the consumer's handler: handler 'Sink.receive': argument 'item' expects Int but found string \"not a number\"",
            "the first reason")
        try c.expectEqual(
            reasons.last,
            "handler 'Sink.receive' threw on attempt 1: handler 'Sink.receive': missing mandatory argument 'item' of type Int",
            "the second reason")
        try c.expect(c.recorder.all.isEmpty, "no handler ran, found \(c.recorder.all)")
        try await center.stop()
    }

    static func componentsApart(_ c: ConformanceContext) async throws {
        let app = try await c.center("app")
        let share = try await c.center("share")
        _ = try await app.register(try c.handler("Sink.async"), for: "both")
        _ = try await share.register(try c.handler("Sink.receive"), for: "both")
        try c.expectEqual(try await app.post("both", payload: ["item": 3]).deliveries, 2, "deliveries")
        try c.expectEqual(try await app.deliverDue(), 1, "deliveries by the app")
        try c.expectEqual(c.recorder.all.map(\.handler), ["Sink.async"], "handlers run")
        try c.expectEqual(try await share.deliverDue(), 1, "deliveries by the share extension")
        try c.expectEqual(c.recorder.all.map(\.handler), ["Sink.async", "Sink.receive"], "handlers run")
        try await app.stop()
        try await share.stop()
    }

    static func guardedCompletion(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        _ = try await center.register(try c.handler("Sink.receive"), for: "g")
        _ = try await center.post("g", payload: ["item": 1])
        let claimed = try c.require(try await c.store.claim(for: center.runID, limit: 10).first, "a claimed delivery")
        try c.expectEqual(claimed.attempt, 1, "the first claim's attempt")
        var otherAttempt = claimed
        otherAttempt.attempt = 2
        var otherRun = claimed
        otherRun.runID = "another run"
        try c.expect(
            try await c.store.complete(otherAttempt, endingConsumer: true, thenStarting: nil).completed == false,
            "another attempt does not complete it")
        try c.expect(
            try await c.store.complete(otherRun, endingConsumer: true, thenStarting: nil).completed == false,
            "another run does not complete it")
        try c.expect(
            try await c.store.release(otherRun, reason: "x", retryAt: nil) == false, "another run does not release it")
        try c.expect(
            try await c.store.complete(claimed, endingConsumer: true, thenStarting: nil).completed,
            "its claim completes it")
        try c.expect(
            try await c.store.complete(claimed, endingConsumer: true, thenStarting: nil).completed == false,
            "a delivery completes once")
        try c.expectEqual(try await c.store.completions(of: claimed.key).count, 1, "completions")
        try await center.stop()
    }

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

    static func automaticDelivery(_ c: ConformanceContext) async throws {
        let center = try await SignalCenter.start(component: "app", store: c.store, registry: c.registry)
        _ = try await center.register(try c.handler("Sink.receive"), for: "auto")
        _ = try await center.post("auto", payload: ["item": 9])
        // Not a timing assertion: waits (up to a minute) for the delivery task to run the handler.
        for _ in 0..<6_000 where c.recorder.all.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        try c.expectEqual(c.recorder.all.map(\.item), [9], "items received")
        try await center.stop()
        try c.expectEqual(try await c.store.statistics().consumers, 0, "consumers left")
    }

    static func badInput(_ c: ConformanceContext) async throws {
        let empty = try await c.error("an empty component") { _ = try await c.center("") }
        try c.expectEqual(empty, .invalidComponent("", reason: "it is empty"), "the error")
        let center = try await c.center("app")
        try c.expectEqual(
            try await c.error("an empty signal id") { try await center.post("") },
            .invalidSignalID("", reason: "it is empty"), "the error")
        try c.expectEqual(
            try await c.error("a signal id with a trailing newline") { try await center.post("job-1\n") },
            .invalidSignalID(
                "job-1\n", reason: "it begins or ends with white space (trim an id read from a file or a line of input)"
            ),
            "the error")
        try c.expectEqual(
            try await c.error("a signal id with a leading space") {
                _ = try await center.register(try c.handler("Sink.receive"), for: " job-1")
            },
            .invalidSignalID(
                " job-1", reason: "it begins or ends with white space (trim an id read from a file or a line of input)"),
            "the error")
        let long = String(repeating: "x", count: 513)
        try c.expectEqual(
            try await c.error("a long signal id") { try await center.post(SignalID(long)) },
            .invalidSignalID(long, reason: "it is 513 bytes long; the limit is 512"), "the error")
        let reserved = try await c.error("a reserved payload name") {
            try await center.post("s", payload: ["deliveryKey": "mine"])
        }
        try c.expectEqual(
            reserved.description,
            "payload of signal 's', value 'deliveryKey': this name is reserved: handlers receive it from HandlerKitSignals itself",
            "the message")
        let unencodable = try await c.error("an unencodable payload") {
            try await center.post("s", payload: ["bad": Unencodable()])
        }
        try c.expect(
            unencodable.description.hasPrefix("payload of signal 's', value 'bad': cannot be encoded:"),
            "the message names signal and value, found: \(unencodable)")
        let handler = try c.handler("Sink.receive")
        try await handler.invalidate()
        try c.expectEqual(
            try await c.error("an invalidated handler") { _ = try await center.register(handler, for: "s") },
            .invalidHandler(handler: "Sink.receive", reason: "it has been invalidated"), "the error")
        try await center.stop()
        try c.expectEqual(
            try await c.error("a stopped center") { try await center.post("s") },
            .centerStopped(component: "app", runID: center.runID), "the error")
        try c.expectEqual(try await c.store.statistics(), SignalStoreStatistics(), "what the store holds at the end")
    }
}
