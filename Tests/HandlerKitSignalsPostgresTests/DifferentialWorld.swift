import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection

/// One store under a differential sequence, with the centers of its slots, its handlers' recorder,
/// and the logical names of what it made: runs are `r1`, `r2`… in the order started, consumers and
/// promises have the names the operations give them. Every text it reports names them so, never by
/// the ids a store made, which differ from store to store.
actor DifferentialWorld {
    let storeName: String
    let store: any InspectableSignalStore
    private let settings: DifferentialSettings
    private let close: @Sendable () async -> Void
    private let recorder: DifferentialRecorder
    private let registry: HandlerRegistry
    private let problems = Locked<[String]>([])
    private var slots: [SignalCenter?] = [nil, nil, nil]
    /// Logical names by the ids the store made (runs, consumers), and by the store's location.
    private var names: [String: String] = [:] {
        didSet { longestFirst = names.sorted { ($0.key.count, $0.key) > ($1.key.count, $1.key) } }
    }
    /// `names`, the longest ids first (a store's location holds its folder).
    private var longestFirst: [(key: String, value: String)] = []
    private var runs = 0
    private var consumers: [Int: ConsumerID] = [:]

    init(
        storeName: String, store: any InspectableSignalStore, folder: String, settings: DifferentialSettings,
        close: @escaping @Sendable () async -> Void
    ) throws {
        self.storeName = storeName
        self.store = store
        self.settings = settings
        self.close = close
        let recorder = DifferentialRecorder()
        self.recorder = recorder
        registry = try DifferentialHandlers.registry(recorder)
        names[folder] = "<folder>"
        names[store.location] = "<store>"
        longestFirst = names.sorted { ($0.key.count, $0.key) > ($1.key.count, $1.key) }
    }

    // MARK: Operations

    /// Applies `operation`; returns what it answered, in logical names.
    func apply(_ operation: DifferentialOperation) async -> String {
        let answer = await answer(operation)
        return normalized(answer)
    }

    private func answer(_ operation: DifferentialOperation) async -> String {
        switch operation {
        case .start(let slot):
            if slots[slot] != nil { return "already running" }
            return await outcome {
                let problems = self.problems
                let center = try await SignalCenter.start(
                    component: DifferentialOperation.components[slot], store: store, registry: registry,
                    options: .init(
                        retry: settings.retry(slot: slot), deliversAutomatically: false,
                        claimBatch: settings.claimBatch,
                        onProblem: { problem in problems.withLock { $0.append("\(problem)") } }))
                slots[slot] = center
                return "started \(nameRun(center.runID)); took over \(describe(center.takeover))"
            }
        case .stop(let slot):
            guard let center = slots[slot] else { return "no center" }
            slots[slot] = nil
            return await outcome {
                try await center.stop()
                return "stopped"
            }
        case .crash(let slot):
            guard let center = slots[slot] else { return "no center" }
            slots[slot] = nil
            if center.isSuspended { return "crashed while suspended" }
            return await outcome {
                let plan = StorePlan("the process of run \(center.runID) dies", steps: [])
                _ = try await store.suspendRun(center.runID, component: center.component, applying: plan)
                let gone = try await waitUntilGone(center.runID)
                return "crashed" + gone
            }
        case .claim(let slot, let limit):
            guard let center = slots[slot] else { return "no center" }
            if center.isSuspended { return "suspended: nothing claimed" }
            return await outcome {
                let batch = try await store.claimStartingFirst(for: center.runID, limit: limit)
                let keys = batch.deliveries.map { "\($0.key) attempt \($0.attempt)" }
                return "claimed [\(keys.joined(separator: ", "))], first \(batch.firstStart.map { "\($0)" } ?? "-")"
            }
        case .suspend(let slot):
            guard let center = slots[slot] else { return "no center" }
            return await outcome {
                let report = try await center.suspend(finishingWithin: .zero)
                let gone = try await waitUntilGone(report.runID)
                return
                    "suspended (was \(report.wasSuspended)): gave back \(report.claimsGivenBack), finished \(report.handlersFinished), still running \(report.handlersStillRunning.count)"
                    + gone
            }
        case .resume(let slot):
            guard let center = slots[slot] else { return "no center" }
            return await outcome {
                let report = try await center.resume()
                var answer = "resumed (was suspended \(report.wasSuspended))"
                if report.wasTakenOver {
                    answer +=
                        ": taken over, now \(nameRun(report.runID)), its run consumers \(report.removedRunConsumers.map(\.rawValue)) removed; took over \(describe(report.takeover))"
                }
                return answer
            }
        case .takeOver(let slot):
            guard let center = slots[slot] else { return "no center" }
            return await outcome { "took over \(describe(try await center.takeOverDeadRuns()))" }
        case .register(let slot, let consumer, let signal, let lifetime, let mode, let failures):
            guard let center = slots[slot] else { return "no center" }
            return await outcome {
                let handler = try Handler(
                    id: DifferentialHandlers.consume, bound: ["tag": "c\(consumer)", "failures": failures],
                    registry: registry)
                let id = try await center.register(
                    handler, for: SignalID("s\(signal)"), lifetime: lifetime, delivery: mode)
                consumers[consumer] = id
                names[id.rawValue] = "c\(consumer)"
                return "registered"
            }
        case .remove(let slot, let consumer, let asOperator):
            let id = consumers[consumer] ?? ConsumerID("c\(consumer)-never-registered")
            if asOperator {
                return await outcome {
                    let discard = try await SignalStoreInspector(store: store).discardConsumer(id)
                    return
                        "discarded \(discard.consumer?.id.rawValue ?? "nothing"): pending \(discard.pendingDeliveries), dead \(discard.deadDeliveries), claimed \(discard.claimedDeliveries)"
                }
            }
            guard let center = slots[slot] else { return "no center" }
            return await outcome { "removed \(try await center.remove(id))" }
        case .post(let slot, let signal, let item, let keep, let delayed, let key, let debounced):
            guard let center = slots[slot] else { return "no center" }
            return await outcome {
                let payload: SignalPayload = item.map { ["item": $0] } ?? SignalPayload()
                let result = try await center.post(
                    SignalID("s\(signal)"), payload: payload,
                    ifUnconsumed: keep ? .keep(for: .seconds(3_600)) : .report,
                    notBefore: delayed ? Date().addingTimeInterval(3_600) : nil, orderingKey: key.map { "k\($0)" },
                    debounce: debounced ? Debounce(key: "d\(signal)", window: .seconds(3_600)) : nil)
                return "revision \(result.revision), deliveries \(result.deliveries), kept \(result.kept)"
            }
        case .bulkPost(let slot, let signals, let items):
            guard let center = slots[slot] else { return "no center" }
            return await outcome {
                let results = try await center.post(
                    zip(signals, items).map { SignalPost(SignalID("s\($0)"), payload: ["item": $1]) })
                return results.map { "revision \($0.revision), deliveries \($0.deliveries)" }.joined(separator: "; ")
            }
        case .deliver(let slot):
            guard let center = slots[slot] else { return "no center" }
            return await outcome { "completed \(try await center.deliverDue())" }
        case .requeue(let slot, let pick):
            guard let center = slots[slot] else { return "no center" }
            return await outcome {
                let dead = try await store.deadDeliveries(of: nil)
                if dead.isEmpty { return "no dead delivery" }
                let key = dead[pick % dead.count].key
                return "requeued \(key): \(try await center.requeue(key))"
            }
        case .requeueAll:
            return await outcome {
                let requeued = try await SignalStoreInspector(store: store).requeue(matching: DeliveryFilter())
                return "requeued \(requeued.map(\.key.rawValue))"
            }
        case .discard(let pick):
            return await outcome {
                let inspector = SignalStoreInspector(store: store)
                let all = try await inspector.deliveries()
                if all.isEmpty { return "no delivery" }
                let key = all[pick % all.count].key
                switch try await inspector.discardDelivery(key) {
                case .discarded(let record): return "discarded \(key) (\(record.state.rawValue))"
                case .claimed: return "not discarded: \(key) is claimed"
                case .notFound: return "not found: \(key)"
                }
            }
        case .makePromise(let slot, let promise, let fallback):
            guard let center = slots[slot] else { return "no center" }
            return await outcome {
                var handler: Handler?
                if fallback {
                    handler = try Handler(
                        id: DifferentialHandlers.fallback, bound: ["tag": "p\(promise)"], registry: registry)
                }
                let made = try await center.makePromise(of: Int.self, id: "p\(promise)", fallback: handler)
                if let consumer = try await center.record(of: made)?.fallbackConsumer {
                    names[consumer.rawValue] = "p\(promise).fallback"
                }
                return "made"
            }
        case .settle(let slot, let promise, let how, let key):
            guard let center = slots[slot] else { return "no center" }
            return await outcome {
                let promised = DurablePromise<Int>(id: "p\(promise)")
                switch how {
                case .fulfil: try await center.fulfil(promised, with: key, settlementKey: "k\(key)")
                case .reject:
                    try await center.reject(
                        promised, with: PromiseRejection(code: "k\(key)", message: "rejected"), settlementKey: "k\(key)"
                    )
                case .cancel: try await center.cancel(promised, settlementKey: "k\(key)")
                }
                return "settled"
            }
        case .await(let slot, let promise):
            guard let center = slots[slot] else { return "no center" }
            return await outcome { try await awaitSettled(DurablePromise<Int>(id: "p\(promise)"), center) }
        }
    }

    /// Awaits `promise` when it is settled. A wait that cannot end (its settlement is dead, or claimed
    /// by a run that is gone) is cancelled after 5 seconds, far longer than one that ends takes.
    private func awaitSettled(_ promise: DurablePromise<Int>, _ center: SignalCenter) async throws -> String {
        guard let record = try await center.record(of: promise) else { return "unknown promise" }
        guard record.isSettled else { return "pending: not awaited" }
        let waiting = Task { try await center.value(of: promise) }
        let timer = Task {
            try await Task.sleep(for: .seconds(5))
            waiting.cancel()
        }
        defer { timer.cancel() }
        return "value \(try await waiting.value)"
    }

    /// Waits until the store no longer counts run `runID` alive: a PostgreSQL server releases the
    /// locks of a connection that closed a moment later (before it drops the connection from
    /// `pg_stat_activity`, which the store's runs read). Empty once it is gone; else says so.
    private func waitUntilGone(_ runID: String) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(120)
        while try await store.runRecords().contains(where: { $0.runID == runID && $0.isAlive }) {
            if ContinuousClock.now >= deadline { return ", but its run is still alive after 120 s" }
            try await Task.sleep(for: .milliseconds(5))
        }
        return ""
    }

    private func outcome(_ body: () async throws -> String) async -> String {
        do {
            return try await body()
        } catch let error as PromiseError {
            if case .alreadySettled(let id, let key, let outcome, _) = error {
                return "error: promise \(id) already settled under \(key) (\(outcome.rawValue))"
            }
            return "error: \(error)"
        } catch {
            return "error: \(error)"
        }
    }

    private func nameRun(_ runID: String) -> String {
        if let name = names[runID] { return name }
        runs += 1
        names[runID] = "r\(runs)"
        return "r\(runs)"
    }

    private func describe(_ report: TakeoverReport) -> String {
        "\(report.deadRuns.map { names[$0] ?? $0 }.sorted()), interrupted \(report.interruptedDeliveries), adopted \(report.adoptedConsumers), removed \(report.removedConsumers)"
    }

    /// `text` with every id this world named replaced by its name.
    func normalized(_ text: String) -> String {
        var text = text
        for (id, name) in longestFirst where text.contains(id) {
            text = text.replacingOccurrences(of: id, with: name)
        }
        return text
    }

    // MARK: Ending

    /// Stops the centers still running and closes the store.
    func finish() async {
        for center in slots.compactMap({ $0 }) { try? await center.stop() }
        slots = [nil, nil, nil]
        await close()
    }
}

extension DifferentialWorld {
    /// What the store and the handlers show after a step, in logical names.
    func observe(answer: String) async -> DifferentialObservation {
        var observation = DifferentialObservation()
        observation.add("answer", [answer])
        let reported = problems.withLock { problems in
            defer { problems = [] }
            return problems
        }
        observation.add("problems reported", reported.map { normalized($0) })
        observation.add("handler calls", recorder.take().map { normalized($0) })
        observation.add("statistics", await lines { ["\(try await store.statistics())"] })
        observation.add("slots", await lines { try await slotLines() })
        observation.add(
            "runs",
            await lines {
                try await store.runRecords().map { "\($0.runID) \($0.component) alive \($0.isAlive)" }
                    .map { normalized($0) }.sorted()
            })
        observation.add(
            "consumers",
            await lines {
                try await store.consumers(of: nil).map { consumer in
                    "\(consumer.id) of \(consumer.signalID) \(consumer.component) run \(consumer.runID) \(consumer.lifetime.rawValue) \(consumer.mode.rawValue) \(consumer.handlerID)"
                }
            })
        observation.add(
            "deliveries",
            await lines {
                try await store.deliveries(matching: DeliveryFilter()).map { delivery in
                    "\(delivery.key) of \(delivery.signalID) \(delivery.state.rawValue) \(delivery.component) \(delivery.lifetime.rawValue) owner \(delivery.ownerRun) claimed by \(delivery.claimedBy ?? "-") attempts \(delivery.attempts) started \(delivery.started) crashed \(delivery.previousAttemptCrashed) error \(delivery.lastError ?? "-")"
                }
            })
        observation.add(
            "dead deliveries",
            await lines {
                try await store.deadDeliveries(of: nil).map { dead in
                    "\(dead.key) of \(dead.signalID) revision \(dead.revision) consumer \(dead.consumerID) \(dead.component) \(dead.handlerID) attempts \(dead.attempts): \(dead.reason)"
                }
            })
        observation.add(
            "completions",
            await lines {
                try await store.completions(matching: CompletionFilter()).map { completion in
                    "\(completion.key) of \(completion.signalID) revision \(completion.revision) by \(completion.runID) attempt \(completion.attempt)"
                }
            })
        observation.add(
            "signal records",
            await lines {
                try await store.signalRecords().map {
                    "\($0.signalID) revision \($0.revision) kept \($0.keptUntil != nil)"
                }
            })
        observation.add("promises", await lines { try await promiseLines() })
        return observation
    }

    /// The lines `body` makes, in logical names; the error it throws as a line.
    private func lines(_ body: () async throws -> [String]) async -> [String] {
        do {
            return try await body().map { normalized($0) }
        } catch {
            return [normalized("error: \(error)")]
        }
    }

    private func promiseLines() async throws -> [String] {
        return try await store.promises(settled: nil).sorted { $0.id < $1.id }.map { promise in
            let settlement = promise.settlement.map {
                "settled \($0.outcome.rawValue) under \($0.key): \(String(decoding: $0.body, as: UTF8.self))"
            }
            return
                "\(promise.id) \(promise.valueType) \(promise.component) limited \(promise.limitedToComponent) fallback \(promise.fallbackConsumer?.rawValue ?? "-") \(settlement ?? "pending")"
        }
    }

    private func slotLines() async throws -> [String] {
        var lines: [String] = []
        for (slot, center) in slots.enumerated() {
            guard let center else {
                lines.append("\(slot): none")
                continue
            }
            let status = try await store.runStatus(of: center.runID)
            lines.append(
                normalized(
                    "\(slot): \(center.runID)\(center.isSuspended ? " suspended" : ""), open \(status.openDeliveries), due \(status.nextDue != nil)"
                ))
        }
        return lines
    }
}
