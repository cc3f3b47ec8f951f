import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection

/// The checks of looking inside a store and repairing it (`InspectableSignalStore`,
/// `SignalStoreInspector`).
extension ConformanceChecks {
    static let inspectionChecks: [SignalStoreConformance.Check] = [
        .init(
            name: "an inspectable store lists runs with their liveness, deliveries by state and filter, and counts",
            body: inspectionReads),
        .init(
            name: "an operator requeues dead deliveries, discards a delivery or a consumer, and purges completions",
            body: inspectionActions),
        .init(
            name:
                "an operator sees the ordering keys held back by a dead or retrying first delivery, and releases one",
            body: blockedOrderingKeys),
    ]

    /// The store under test as an inspectable one, or a failure saying it is not.
    static func inspectable(_ c: ConformanceContext) throws -> any InspectableSignalStore {
        guard let store = c.store as? any InspectableSignalStore else {
            throw ConformanceFailure(
                check: c.check, message: "the store is not an InspectableSignalStore: \(type(of: c.store))", line: #line
            )
        }
        return store
    }

    /// A center of `component` whose failing deliveries are dead at the first attempt, or retried
    /// after an hour when `retries`.
    static func failing(_ c: ConformanceContext, _ component: String, retries: Bool) async throws -> SignalCenter {
        try await c.center(
            component,
            retry: retries
                ? RetryPolicy(maximumAttempts: 3, firstDelay: .seconds(3_600), maximumDelay: .seconds(3_600))
                : RetryPolicy(maximumAttempts: 1))
    }

    /// The store's run records once `runID` is no longer alive, or after 10 seconds. A store whose
    /// proof of life is a file lock frees it when the run is suspended, but a process being spawned
    /// meanwhile (by another test) holds a copy of the descriptor until it executes its program.
    static func recordsOnceGone(
        _ runID: String, _ store: any InspectableSignalStore
    ) async throws -> [RunRecord] {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let runs = try await store.runRecords()
            let alive = runs.first { $0.runID == runID }?.isAlive ?? false
            if !alive || ContinuousClock.now >= deadline { return runs }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    static func inspectionReads(_ c: ConformanceContext) async throws {
        let store = try inspectable(c)
        let started = Date()
        let app = try await failing(c, "app", retries: false)
        let worker = try await failing(c, "worker", retries: true)
        let once = try await app.register(try c.handler("Sink.receive"), for: "s1")
        let every = try await app.register(try c.handler("Sink.receive"), for: "s2", delivery: .everyRevision)
        let bad = try await app.register(try c.handler("Sink.fail"), for: "bad")
        _ = try await worker.register(try c.handler("Sink.fail"), for: "later")
        _ = try await app.post("s1", payload: ["item": 1])
        _ = try await app.post("s2", payload: ["item": 2])
        _ = try await app.post("bad")
        _ = try await app.post("later")
        try c.expectEqual(try await app.deliverDue(), 2, "deliveries completed by app")
        try c.expectEqual(try await worker.deliverDue(), 0, "deliveries completed by worker")
        _ = try await app.post("s2", payload: ["item": 3])
        _ = try await app.post("s2", payload: ["item": 4])
        _ = try await app.post("early", payload: ["item": 5], ifUnconsumed: .keep(for: .seconds(600)))
        let claimed = try await store.claim(for: app.runID, limit: 1)
        try c.expectEqual(claimed.map(\.key), [DeliveryKey("\(every.rawValue)/2")], "the delivery claimed")

        // Counts by component and state.
        let status = try await SignalStoreInspector(store: store).status()
        try c.expectEqual(status.count(of: "app", in: .claimed), 1, "claimed deliveries of app")
        try c.expectEqual(status.count(of: "app", in: .pending), 1, "pending deliveries of app")
        try c.expectEqual(status.count(of: "app", in: .dead), 1, "dead deliveries of app")
        try c.expectEqual(status.count(of: "worker", in: .retrying), 1, "deliveries of worker waiting for a retry")
        try c.expectEqual(status.count(of: "worker", in: .pending), 0, "pending deliveries of worker")
        try c.expectEqual(status.deadDeliveries, 1, "dead deliveries")
        try c.expectEqual(status.keptSignals, 1, "kept signals")
        try c.expectEqual(status.components, ["app", "worker"], "components")
        try c.expectEqual(status.componentsWithoutLiveRun, [], "components with waiting deliveries and no live run")
        try c.expect(
            status.oldestWaiting.map { $0 >= started.addingTimeInterval(-1) && $0 <= Date() } ?? false,
            "the oldest waiting delivery was made during the check, found \(String(describing: status.oldestWaiting))")

        // Runs, alive; a suspended one is gone.
        try c.expectEqual(Set(status.runs.map(\.runID)), [app.runID, worker.runID], "runs recorded")
        try c.expect(status.runs.allSatisfy(\.isAlive), "both runs alive, found \(status.runs)")
        try c.expectEqual(
            status.runs.first { $0.runID == worker.runID }?.component, "worker", "the component of worker's run")
        _ = try await worker.suspend(finishingWithin: .zero)
        let runs = try await recordsOnceGone(worker.runID, store)
        try c.expectEqual(
            runs.first { $0.runID == worker.runID }?.isAlive, false, "the suspended run is gone (still recorded)")
        try c.expectEqual(runs.first { $0.runID == app.runID }?.isAlive, true, "the other run is alive")
        try c.expectEqual(
            try await SignalStoreInspector(store: store).status().componentsWithoutLiveRun, ["worker"],
            "components whose waiting deliveries no live run delivers")

        // Deliveries by state and filter.
        let deadOnes = try await store.deliveries(matching: DeliveryFilter(states: [.dead]))
        try c.expectEqual(deadOnes.map(\.key), [DeliveryKey("\(bad.rawValue)/1")], "dead deliveries")
        try c.expectEqual(deadOnes.first?.attempts, 1, "the dead delivery's attempts")
        try c.expectEqual(deadOnes.first?.handlerID, "Sink.fail", "the dead delivery's handler id")
        try c.expect(
            deadOnes.first?.lastError?.contains("fails on purpose") ?? false,
            "the dead delivery's reason, found \(String(describing: deadOnes.first?.lastError))")
        try c.expect(deadOnes.first?.handler == nil, "no body unless asked for")
        let held = try c.require(
            try await store.deliveries(matching: DeliveryFilter(states: [.claimed])).first, "a claimed delivery")
        try c.expect(
            held.claimedBy == app.runID && held.attempts == 1 && held.state == .claimed && !held.started
                && held.claimedAt.map { $0 >= started.addingTimeInterval(-1) && $0 <= Date() } == true,
            "claimed by app's run just now, attempt 1, not started, found \(held)")
        let retrying = try await store.deliveries(matching: DeliveryFilter(states: [.retrying], component: "worker"))
        try c.expect(
            retrying.count == 1 && retrying[0].dueAt > Date().addingTimeInterval(3_000) && retrying[0].attempts == 1,
            "one delivery of worker due in an hour after one attempt, found \(retrying)")
        let bodies = try await store.deliveries(matching: DeliveryFilter(signalID: "s2", includesBodies: true))
        try c.expectEqual(bodies.map(\.revision), [2, 3], "revisions of s2 not completed")
        try c.expect(
            bodies.allSatisfy { ($0.handler?.isEmpty == false) && ($0.payload?.isEmpty == false) },
            "handler documents and payloads, found \(bodies.map { ($0.handler?.count, $0.payload?.count) })")
        try c.expect(
            String(decoding: bodies.last?.payload ?? [], as: UTF8.self).contains("4"),
            "the payload of revision 3 (item 4)")
        try c.expectEqual(
            try await store.deliveries(matching: DeliveryFilter(handlerID: "Sink.fail")).count, 2,
            "deliveries of handler Sink.fail")
        try c.expectEqual(
            try await store.deliveries(matching: DeliveryFilter(consumerID: every, limit: 1)).map(\.revision), [2],
            "the oldest delivery of the every-revision consumer")
        try c.expectEqual(
            try await store.deliveries(matching: DeliveryFilter(madeBefore: started.addingTimeInterval(-60))).count, 0,
            "deliveries made before the check")
        try c.expectEqual(
            try await store.deliveries(matching: DeliveryFilter(states: [])).count, 0, "deliveries in no state")

        // Completions and signal records.
        let completions = try await store.completions(
            matching: CompletionFilter(key: DeliveryKey("\(once.rawValue)/1")))
        try c.expect(
            completions.count == 1 && completions[0].signalID == "s1" && completions[0].runID == app.runID
                && completions[0].attempt == 1 && completions[0].consumerID == once,
            "the completion of s1, found \(completions)")
        try c.expectEqual(
            try await store.completions(matching: CompletionFilter(signalID: "s2")).map(\.revision), [1],
            "completions of s2")
        try c.expectEqual(try await store.completions(matching: CompletionFilter(limit: 1)).count, 1, "limited")
        let signals = try await store.signalRecords()
        try c.expect(
            signals.contains { $0.signalID == "early" && $0.isKept() && $0.revision == 1 },
            "the kept signal 'early', found \(signals)")

        _ = try await worker.resume()
        try await worker.stop()
        try await app.stop()
    }

    static func inspectionActions(_ c: ConformanceContext) async throws {
        let store = try inspectable(c)
        let inspector = SignalStoreInspector(store: store)
        let app = try await failing(c, "app", retries: false)
        let first = try await app.register(try c.handler("Sink.fail"), for: "bad", delivery: .everyRevision)
        let second = try await app.register(try c.handler("Sink.fail"), for: "worse", delivery: .everyRevision)
        let waiting = try await app.register(try c.handler("Sink.receive"), for: "waiting", delivery: .everyRevision)
        for _ in 1...2 { _ = try await app.post("bad") }
        _ = try await app.post("worse")
        _ = try await app.deliverDue()
        try c.expectEqual(try await inspector.status().deadDeliveries, 3, "dead deliveries")

        // Requeue one by key, then the rest by filter: pending, due, fresh attempts, no error.
        let one = try await inspector.requeue(matching: DeliveryFilter(key: DeliveryKey("\(first.rawValue)/1")))
        try c.expectEqual(one.map(\.key), [DeliveryKey("\(first.rawValue)/1")], "requeued by key")
        let requeued = try c.require(try await inspector.delivery(DeliveryKey("\(first.rawValue)/1")), "it")
        try c.expect(
            requeued.state == .pending && requeued.attempts == 0 && requeued.lastError == nil
                && requeued.dueAt <= Date(),
            "pending, due now, no attempt, no error, found \(requeued)")
        try c.expect(requeued.handler != nil && requeued.payload != nil, "a delivery's detail carries its bodies")
        let rest = try await inspector.requeue(matching: DeliveryFilter(signalID: "bad"))
        try c.expectEqual(rest.map(\.key), [DeliveryKey("\(first.rawValue)/2")], "requeued by filter (dead ones only)")
        try c.expectEqual(try await inspector.requeue(matching: DeliveryFilter(signalID: "bad")), [], "nothing left")
        _ = try await app.deliverDue()
        try c.expectEqual(
            try await inspector.deliveries(matching: DeliveryFilter(states: [.dead])).count, 3,
            "dead again after their handlers threw again")

        // Discard a dead delivery; a claimed one stays; an unknown key is not found.
        let discarded = try await inspector.discardDelivery(DeliveryKey("\(second.rawValue)/1"))
        guard case .discarded(let record) = discarded, record.state == .dead else {
            throw ConformanceFailure(check: c.check, message: "discarded the dead one, found \(discarded)", line: #line)
        }
        try c.expect(
            try await inspector.delivery(DeliveryKey("\(second.rawValue)/1")) == nil, "the discarded delivery is gone")
        _ = try await app.post("waiting", payload: ["item": 1])
        _ = try await app.post("waiting", payload: ["item": 2])
        let claimed = try await store.claim(for: app.runID, limit: 1)
        try c.expectEqual(claimed.count, 1, "claimed")
        let refused = try await inspector.discardDelivery(claimed[0].key)
        guard case .claimed = refused else {
            throw ConformanceFailure(check: c.check, message: "a claimed delivery stays, found \(refused)", line: #line)
        }
        try c.expectEqual(
            try await inspector.discardDelivery(DeliveryKey("no such key")), .notFound, "an unknown key")

        // Discard a consumer: its pending and dead deliveries go, a claimed one finishes.
        let removed = try await inspector.discardConsumer(waiting)
        try c.expect(
            removed.consumer?.id == waiting && removed.pendingDeliveries == 1 && removed.deadDeliveries == 0
                && removed.claimedDeliveries == 1, "the consumer and its pending delivery, found \(removed)")
        let gone = try await inspector.discardConsumer(first)
        try c.expect(
            gone.consumer?.id == first && gone.deadDeliveries == 2 && gone.pendingDeliveries == 0,
            "the consumer with its dead deliveries, found \(gone)")
        try c.expect(
            try await inspector.discardConsumer(first).consumer == nil, "discarding it again finds no consumer")
        try c.expectEqual(
            try await store.consumers(of: nil).map(\.id), [second], "consumers left")
        let completed = try await store.complete(claimed[0], endingConsumer: false, thenStarting: nil)
        try c.expect(completed.completed, "the claimed delivery of the discarded consumer completes")

        // Purge completions: of one key, then all.
        try c.expectEqual(
            try await inspector.purgeCompletions(of: DeliveryKey("no such key")), 0, "completions of an unknown key")
        try c.expectEqual(try await inspector.purgeCompletions(of: claimed[0].key), 1, "completions of its key")
        try c.expectEqual(try await store.completions(of: claimed[0].key), [], "its completions")
        try c.expectEqual(
            try await inspector.purgeCompletions(completedBefore: Date(timeIntervalSince1970: 0)), 0,
            "completions before 1970")
        try await app.stop()
        try c.expectEqual(try await store.statistics().completions, 0, "completions left")
        try c.expectEqual(try await inspector.status().deadDeliveries, 0, "dead deliveries left")
    }

    static func blockedOrderingKeys(_ c: ConformanceContext) async throws {
        let inspector = SignalStoreInspector(store: try inspectable(c))
        // Dead at the first failure: the heads of keys k and m, and a delivery without a key.
        let dying = try await failing(c, "dies", retries: false)
        _ = try await dying.register(
            try c.handler("Sink.fail"), for: "bad", lifetime: .queue, delivery: .everyRevision)
        for key in ["k", "k", "k", "m", nil] { _ = try await dying.post("bad", orderingKey: key) }
        // Retried after an hour: the head of key r.
        let retrying = try await failing(c, "retries", retries: true)
        _ = try await retrying.register(
            try c.handler("Sink.fail"), for: "flaky", lifetime: .queue, delivery: .everyRevision)
        for _ in 1...2 { _ = try await retrying.post("flaky", orderingKey: "r") }
        _ = try await dying.deliverDue()
        _ = try await retrying.deliverDue()

        let blocked = try await inspector.blockedOrderingKeys()
        try c.expectEqual(
            blocked.map { "\($0.orderingKey) \($0.head.revision) \($0.head.filterState.rawValue) \($0.waiting)" },
            ["k 1 dead 2", "m 4 dead 0", "r 1 retrying 1"], "blocked keys (key, head's revision, state, waiting)")
        try c.expectEqual(blocked.map(\.needsOperator), [true, true, false], "which need an operator")
        try c.expectEqual(
            try await inspector.blockedOrderingKeys(component: "retries").map(\.orderingKey), ["r"],
            "blocked keys of component retries")
        let keyed = try await inspector.deliveries(matching: DeliveryFilter(orderingKey: "k"))
        try c.expectEqual(keyed.map(\.revision), [1, 2, 3], "the revisions of key k")
        try c.expectEqual(Set(keyed.map(\.orderingKey)), ["k"], "their ordering key")
        let unkeyed = try await inspector.deliveries(matching: DeliveryFilter(states: [.dead], signalID: "bad"))
        try c.expectEqual(unkeyed.map(\.orderingKey), ["k", "m", nil], "the ordering keys of the dead deliveries")

        // Requeued, the head of k is pending again and runs first: k is no longer blocked.
        let head = try c.require(blocked.first, "the head of k")
        try c.expectEqual(
            try await inspector.requeue(matching: DeliveryFilter(orderingKey: "k")).map(\.key), [head.head.key],
            "requeued by ordering key (its dead delivery only)")
        try c.expectEqual(
            try await inspector.blockedOrderingKeys().map(\.orderingKey), ["m", "r"], "blocked keys after the requeue")
        try await retrying.stop()
        try await dying.stop()
    }
}
