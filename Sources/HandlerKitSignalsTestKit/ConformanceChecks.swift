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
        .init(
            name: "a claim that takes back lost claims takes the run's claims not in progress, as their next attempt",
            body: reclaimingTakesLostClaims),
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
