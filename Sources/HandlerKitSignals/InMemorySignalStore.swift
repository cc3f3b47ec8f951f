import Foundation
import HandlerKit

/// A complete signal store in this process's memory: the executable form of
/// <doc:HowADeliveryMoves>, for an app's own tests and previews.
///
/// It keeps every guarantee of the other stores among the centers of one process (claims checked by
/// run and attempt, takeover of runs that ended, retries, dead deliveries, kept signals, the history
/// of completions), and nothing outlives the object: a run is alive from `beginRun` until `endRun`.
///
/// ```swift
/// let store = InMemorySignalStore()
/// let center = try await SignalCenter.start(component: "app", store: store)
/// ```
public final class InMemorySignalStore: SignalStore {
    /// A name for messages (``location``).
    public let name: String
    /// How long completions stay in the history (``completions(of:)``).
    public let completionHistory: Duration
    public var location: String { "memory:\(name)" }
    private let state: Locked<State>
    private let listeners = Locked<[ObjectIdentifier: InMemoryWakeListener]>([:])

    /// An empty store; `name` only appears in messages.
    public init(name: String = "signals", completionHistory: Duration = .seconds(86_400)) {
        self.name = name
        self.completionHistory = completionHistory
        state = Locked(State(completionHistory: completionHistory.seconds))
    }

    private struct Consumer {
        var record: ConsumerRecord
        var delivered = false
    }

    private struct Signal {
        var revision: Int
        var postedAt = Date()
        var payload: [UInt8]
        var keepUntil: Date?
    }

    private struct Delivery {
        var key: DeliveryKey
        var consumerID: ConsumerID
        var signalID: String
        var revision: Int
        var component: String
        var ownerRun: String
        var lifetime: ConsumerLifetime
        var handlerID: String
        var handler: [UInt8]
        var payload: [UInt8]
        var state: DeliveryState = .pending
        var claimedBy: String?
        var claimedAt: Date?
        var attempt = 0
        var notBefore: Date
        var madeAt: Date
        var lastError: String?
        /// Whether the current attempt's handler was started (`start`).
        var started = false
        /// Whether the previous attempt was started and its run retired before settling it.
        var crashed = false
    }

    private struct Completion {
        var record: CompletionRecord
        var consumerID: ConsumerID
        var signalID: String
        var revision: Int
        var completedAt: Date
    }

    private struct State {
        /// Recorded runs and their components.
        var runs: [String: String] = [:]
        /// When each recorded run started.
        var runStarts: [String: Date] = [:]
        /// Recorded runs that are suspended: they count as gone (taken over like ended runs).
        var suspended: Set<String> = []
        /// In the order registered.
        var consumers: [Consumer] = []
        var signals: [String: Signal] = [:]
        /// By row id, which grows in the order made.
        var deliveries: [Int64: Delivery] = [:]
        var nextRowID: Int64 = 1
        var completions: [Completion] = []
        /// Durable promises by id (the `// MARK: Promises` section).
        var promises: [String: PromiseRecord] = [:]
        /// How long completions stay in the history, in seconds.
        let completionHistory: Double

        /// Posts as ``InMemorySignalStore/post(_:payload:keepUntil:)`` does, without its wake-up.
        mutating func post(_ signalID: String, payload: [UInt8], keepUntil: Date?) -> PostResult {
            let posting = Posting(signalID: signalID, payload: payload, keepUntil: keepUntil)
            let now = Date()
            let indices = consumers.indices.filter { consumers[$0].record.signalID == signalID }
            let decision = posting.decide(
                previousRevision: signals[signalID]?.revision,
                consumers: indices.map { index in
                    Posting.Consumer(mode: consumers[index].record.mode.rawValue, served: consumers[index].delivered)
                })
            for (consumer, serves) in decision.deliveries {
                let index = indices[consumer]
                addDelivery(for: consumers[index].record, revision: decision.revision, payload: payload, now: now)
                if serves { consumers[index].delivered = true }
            }
            signals[signalID] =
                decision.keepsRecord
                ? Signal(revision: decision.revision, postedAt: now, payload: posting.keptPayload, keepUntil: keepUntil)
                : nil
            return posting.result(revision: decision.revision, deliveries: decision.deliveries.count)
        }

        mutating func addDelivery(for consumer: ConsumerRecord, revision: Int, payload: [UInt8], now: Date) {
            deliveries[nextRowID] = Delivery(
                key: DeliveryKey(consumer: consumer.id.rawValue, revision: revision), consumerID: consumer.id,
                signalID: consumer.signalID, revision: revision, component: consumer.component,
                ownerRun: consumer.runID,
                lifetime: consumer.lifetime, handlerID: consumer.handlerID, handler: consumer.handler, payload: payload,
                notBefore: now, madeAt: now)
            nextRowID += 1
        }

        /// Makes each step of `plan` in order; returns how many records each changed.
        mutating func run(_ plan: StorePlan) -> [Int] {
            plan.steps.map { apply($0) }
        }

        /// Makes one step; returns how many records it changed.
        private mutating func apply(_ step: StoreStep) -> Int {
            switch step {
            case .interruptClaims(let run, let attempts):
                return updateDeliveries(where: { $0.state == .claimed && $0.claimedBy == run }) {
                    $0.claimedBy = nil
                    guard $0.started else {
                        $0.state = .pending
                        $0.attempt -= 1
                        return
                    }
                    $0.started = false
                    $0.crashed = true
                    $0.lastError = attempts.reason + String($0.attempt)
                    if $0.attempt >= attempts.maximumAttempts {
                        $0.state = .dead
                    } else {
                        $0.state = .pending
                        $0.notBefore = Date(timeIntervalSince1970: attempts.retryAt)
                    }
                }
            case .giveBackClaims(let run, let keeping):
                let kept = Set(keeping)
                var given = 0
                for (id, row) in deliveries where row.state == .claimed && row.claimedBy == run && !kept.contains(id) {
                    deliveries[id]?.claimedBy = nil
                    deliveries[id]?.state = .pending
                    deliveries[id]?.attempt -= 1
                    deliveries[id]?.started = false
                    given += 1
                }
                return given
            case .removeRunTiedDeliveries(let run):
                return removeDeliveries { $0.ownerRun == run && $0.lifetime == .run && $0.state != .dead }
            case .removeRunTiedConsumers(let run):
                return removeConsumers { $0.runID == run && $0.lifetime == .run }
            case .moveConsumers(let run, let taker):
                var moved = 0
                for index in consumers.indices where consumers[index].record.runID == run {
                    consumers[index].record.runID = taker
                    moved += 1
                }
                return moved
            case .moveDeliveries(let run, let taker):
                return updateDeliveries(where: { $0.ownerRun == run }) { $0.ownerRun = taker }
            case .moveConsumer(let id, let run):
                guard let index = consumers.firstIndex(where: { $0.record.id.rawValue == id }) else { return 0 }
                consumers[index].record.runID = run
                return 1
            case .movePendingDeliveries(let consumer, let run):
                guard consumers.contains(where: { $0.record.id.rawValue == consumer }) else { return 0 }
                return updateDeliveries(where: { $0.consumerID.rawValue == consumer && $0.state == .pending }) {
                    $0.ownerRun = run
                }
            case .removeRun(let run):
                runStarts[run] = nil
                return runs.removeValue(forKey: run) == nil ? 0 : 1
            case .removePendingDeliveries(let consumer):
                return removeDeliveries { $0.consumerID.rawValue == consumer && $0.state == .pending }
            case .removeConsumer(let id):
                return removeConsumers { $0.id.rawValue == id }
            case .removeUnusedSignals(let now):
                let used = Set(consumers.map(\.record.signalID))
                let before = signals.count
                signals = signals.filter { id, signal in
                    used.contains(id) || (signal.keepUntil.map { $0.timeIntervalSince1970 >= now } ?? false)
                }
                return before - signals.count
            case .forgetCompletions(let now):
                let count = completions.count
                completions.removeAll { $0.completedAt.timeIntervalSince1970 < now - completionHistory }
                return count - completions.count
            case .insertConsumer(let consumer, _):
                consumers.append(Consumer(record: consumer))
                return 1
            case .deliverKeptRevision(let consumer, let now):
                guard let kept = signals[consumer.signalID], let until = kept.keepUntil,
                    until.timeIntervalSince1970 >= now
                else { return 0 }
                addDelivery(
                    for: consumer, revision: kept.revision, payload: kept.payload,
                    now: Date(timeIntervalSince1970: now))
                return 1
            case .markServedWhenDelivered(let consumer):
                guard deliveries.values.contains(where: { $0.consumerID.rawValue == consumer }),
                    let index = consumers.firstIndex(where: { $0.record.id.rawValue == consumer })
                else { return 0 }
                consumers[index].delivered = true
                return 1
            case .requeueDead(let key, let now):
                return updateDeliveries(where: { $0.key.rawValue == key && $0.state == .dead }) {
                    $0.state = .pending
                    $0.attempt = 0
                    $0.notBefore = Date(timeIntervalSince1970: now)
                    $0.lastError = nil
                    $0.started = false
                    $0.crashed = false
                }
            case .removeDelivery(let key):
                return removeDeliveries { $0.key.rawValue == key && $0.state != .claimed }
            case .removeCompletions(let key, let before):
                let count = completions.count
                completions.removeAll {
                    (key == nil || $0.record.key.rawValue == key) && $0.completedAt.timeIntervalSince1970 < before
                }
                return count - completions.count
            case .releaseClaim(let release):
                guard var row = claimedRow(release.rowID, run: release.run, attempt: release.attempt) else { return 0 }
                row.state = release.state
                row.claimedBy = nil
                row.started = false
                row.crashed = false
                row.lastError = release.reason
                if let due = release.dueAt { row.notBefore = Date(timeIntervalSince1970: due) }
                deliveries[release.rowID] = row
                return 1
            }
        }

        private mutating func updateDeliveries(
            where matches: (Delivery) -> Bool, _ change: (inout Delivery) -> Void
        ) -> Int {
            var changed = 0
            for (id, delivery) in deliveries where matches(delivery) {
                change(&deliveries[id, default: delivery])
                changed += 1
            }
            return changed
        }

        private mutating func removeDeliveries(where matches: (Delivery) -> Bool) -> Int {
            let before = deliveries.count
            deliveries = deliveries.filter { !matches($0.value) }
            return before - deliveries.count
        }

        private mutating func removeConsumers(where matches: (ConsumerRecord) -> Bool) -> Int {
            let before = consumers.count
            consumers.removeAll { matches($0.record) }
            return before - consumers.count
        }

        /// Completes `delivery` if it is still claimed by the same run and attempt; with
        /// `endingConsumer`, ends its consumer and then its signal record when no one uses it.
        mutating func complete(_ delivery: ClaimedDelivery, endingConsumer: Bool) -> Bool {
            guard claimedRow(delivery) != nil else { return false }
            let now = Date()
            deliveries[delivery.rowID] = nil
            completions.append(
                Completion(
                    record: CompletionRecord(key: delivery.key, runID: delivery.runID, attempt: delivery.attempt),
                    consumerID: delivery.consumerID, signalID: delivery.signalID, revision: delivery.revision,
                    completedAt: now))
            guard endingConsumer else { return true }
            let before = consumers.count
            consumers.removeAll { $0.record.id == delivery.consumerID }
            if consumers.count < before, let signal = signals[delivery.signalID],
                !(signal.keepUntil.map { $0 >= now } ?? false),
                !consumers.contains(where: { $0.record.signalID == delivery.signalID })
            {
                signals[delivery.signalID] = nil
            }
            return true
        }

        /// Claims up to `limit` due deliveries of `runID`, oldest first.
        mutating func claim(for runID: String, limit: Int) -> [ClaimedDelivery] {
            let now = Date()
            let due =
                deliveries
                .filter { $0.value.ownerRun == runID && $0.value.state == .pending && $0.value.notBefore <= now }
                .keys.sorted().prefix(max(0, limit))
            return due.compactMap { id -> ClaimedDelivery? in
                guard var row = deliveries[id] else { return nil }
                row.state = .claimed
                row.claimedBy = runID
                row.claimedAt = now
                row.attempt += 1
                row.started = false
                deliveries[id] = row
                return ClaimedDelivery(
                    rowID: id, key: row.key, consumerID: row.consumerID, signalID: row.signalID,
                    revision: row.revision, handler: row.handler, payload: row.payload,
                    attempt: row.attempt, runID: runID,
                    mode: consumers.first { $0.record.id == row.consumerID }?.record.mode,
                    previousAttemptCrashed: row.crashed)
            }
        }

        /// Marks `delivery` started if its run is recorded and it is still claimed by it and attempt.
        mutating func start(_ delivery: ClaimedDelivery) -> StartOutcome {
            let recorded = runs[delivery.runID] != nil
            let marked = recorded && claimedRow(delivery) != nil
            if marked { deliveries[delivery.rowID]?.started = true }
            return StartOutcome(marked: marked, runRecorded: recorded)
        }

        /// The delivery `delivery` claimed, if it is still claimed by the same run and attempt.
        func claimedRow(_ delivery: ClaimedDelivery) -> Delivery? {
            claimedRow(delivery.rowID, run: delivery.runID, attempt: delivery.attempt)
        }

        /// The delivery in row `rowID`, if it is claimed by `run` with `attempt`.
        func claimedRow(_ rowID: Int64, run: String, attempt: Int) -> Delivery? {
            guard let row = deliveries[rowID], row.state == .claimed, row.claimedBy == run, row.attempt == attempt
            else { return nil }
            return row
        }
    }

    // MARK: Runs

    public func beginRun(
        _ runID: String, component: String, retry: RetryPolicy, applying plan: StorePlan
    ) async throws(SignalError) {
        _ = state.withLock { state in
            state.runs[runID] = component
            state.runStarts[runID] = Date()
            return state.run(plan)
        }
    }

    public func endRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        _ = try await apply(plan)
        _ = state.withLock { state in
            state.runStarts[runID] = nil
            return state.runs.removeValue(forKey: runID)
        }
    }

    public func suspendRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int] {
        let counts = state.withLock { state in
            state.suspended.insert(runID)
            return state.run(plan)
        }
        if plan.wakeUp(counts: counts) != nil { wakeAll() }
        return counts
    }

    public func resumeRun(
        _ runID: String, component: String, retry: RetryPolicy, applying plan: StorePlan
    ) async throws(SignalError) -> Bool {
        let counts = state.withLock { state -> [Int]? in
            state.suspended.remove(runID)
            return state.runs[runID] == nil ? nil : state.run(plan)
        }
        if let counts, plan.wakeUp(counts: counts) != nil { wakeAll() }
        return counts != nil
    }

    public func runs(of component: String) async throws(SignalError) -> RunsOfComponent {
        state.withLock { state in
            RunsOfComponent(
                recorded: Set(state.runs.filter { $0.value == component }.keys),
                namedByConsumers: Set(
                    state.consumers.filter { $0.record.component == component }.map(\.record.runID)),
                owningDeliveries: Set(state.deliveries.values.filter { $0.component == component }.map(\.ownerRun)))
        }
    }

    /// A run is gone once its `endRun` removed it (nothing outlives the object), or while it is suspended.
    public func takeOver(
        _ run: String, of component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int]? {
        let counts = state.withLock { state -> [Int]? in
            guard state.runs[run] == nil || state.suspended.contains(run) else { return nil }
            // A taker that was itself taken over takes nothing over.
            if let taker = plan.taker, state.runs[taker] == nil { return nil }
            state.suspended.remove(run)
            return state.run(plan)
        }
        if let counts, plan.wakeUp(counts: counts) != nil { wakeAll() }
        return counts
    }

    public func apply(_ plan: StorePlan) async throws(SignalError) -> [Int] {
        let counts = state.withLock { $0.run(plan) }
        if plan.wakeUp(counts: counts) != nil { wakeAll() }
        return counts
    }

    // MARK: Consumers

    public func consumers(of component: String?) async throws(SignalError) -> [ConsumerRecord] {
        state.withLock { state in
            state.consumers.map(\.record).filter { component == nil || $0.component == component }
        }
    }

    // MARK: Posting

    public func post(_ signalID: String, payload: [UInt8], keepUntil: Date?) async throws(SignalError) -> PostResult {
        let result = state.withLock { $0.post(signalID, payload: payload, keepUntil: keepUntil) }
        if result.deliveries > 0 { wakeAll() }
        return result
    }

    // MARK: Delivering

    public func claim(for runID: String, limit: Int) async throws(SignalError) -> [ClaimedDelivery] {
        state.withLock { $0.claim(for: runID, limit: limit) }
    }

    public func claimStartingFirst(for runID: String, limit: Int) async throws(SignalError) -> ClaimedBatch {
        state.withLock { state in
            let deliveries = ClaimedDelivery.runningOrder(state.claim(for: runID, limit: limit))
            return ClaimedBatch(deliveries: deliveries, firstStart: deliveries.first.map { state.start($0) })
        }
    }

    public func start(_ delivery: ClaimedDelivery) async throws(SignalError) -> StartOutcome {
        state.withLock { $0.start(delivery) }
    }

    public func complete(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, thenStarting next: ClaimedDelivery?
    ) async throws(SignalError) -> CompletionOutcome {
        state.withLock { state in
            let completed = state.complete(delivery, endingConsumer: endingConsumer)
            return CompletionOutcome(completed: completed, next: next.map { state.start($0) })
        }
    }

    public func runStatus(of runID: String) async throws(SignalError) -> RunStatus {
        state.withLock { state in
            let open = state.deliveries.values.filter { $0.ownerRun == runID && $0.state != .dead }
            return RunStatus(
                openDeliveries: open.count, nextDue: open.filter { $0.state == .pending }.map(\.notBefore).min())
        }
    }

    // MARK: Dead deliveries

    public func deadDeliveries(of component: String?) async throws(SignalError) -> [DeadDelivery] {
        state.withLock { state in
            state.deliveries.sorted { $0.key < $1.key }.map(\.value)
                .filter { $0.state == .dead && (component == nil || $0.component == component) }
                .map {
                    DeadDelivery(
                        key: $0.key, signalID: $0.signalID, revision: $0.revision, consumerID: $0.consumerID,
                        component: $0.component, handlerID: $0.handlerID, attempts: $0.attempt,
                        reason: $0.lastError ?? DeadDelivery.unknownReason)
                }
        }
    }

    public func completions(of key: DeliveryKey) async throws(SignalError) -> [CompletionRecord] {
        state.withLock { state in state.completions.map(\.record).filter { $0.key == key } }
    }

    public func statistics() async throws(SignalError) -> SignalStoreStatistics {
        state.withLock { state in
            SignalStoreStatistics(
                runs: state.runs.count, consumers: state.consumers.count, signals: state.signals.count,
                completions: state.completions.count,
                deliveries: state.deliveries.values.map { (state: $0.state.rawValue, count: 1) })
        }
    }

    // MARK: Wake-ups

    public func makeWakeListener() throws(SignalError) -> any SignalWakeListener {
        let listener = InMemoryWakeListener { [weak self] listener in
            self?.listeners.withLock { $0[ObjectIdentifier(listener)] = nil }
        }
        listeners.withLock { $0[ObjectIdentifier(listener)] = listener }
        return listener
    }

    private func wakeAll() {
        for listener in listeners.withLock({ Array($0.values) }) { listener.wake() }
    }
}

/// Wakes a center of an ``InMemorySignalStore`` when the store made deliveries due.
final class InMemoryWakeListener: SignalWakeListener {
    private let signal = WakeSignal()
    private let onClose: @Sendable (InMemoryWakeListener) -> Void

    init(onClose: @escaping @Sendable (InMemoryWakeListener) -> Void) {
        self.onClose = onClose
    }

    func next(deadline: ContinuousClock.Instant) async {
        await signal.wait(until: deadline)
    }

    func close() {
        signal.close()
        onClose(self)
    }

    /// Resumes a waiting `next`, or makes the next call return at once.
    func wake() {
        signal.wake()
    }
}

// MARK: Inspection

extension InMemorySignalStore: InspectableSignalStore {
    /// A run is alive from `beginRun` until `endRun`, except while it is suspended.
    public func runRecords() async throws(SignalError) -> [RunRecord] {
        let pid = Int(ProcessInfo.processInfo.processIdentifier)
        return state.withLock { state in
            state.runs.map { run, component in
                RunRecord(
                    runID: run, component: component, host: nil, processID: pid,
                    startedAt: state.runStarts[run] ?? Date(timeIntervalSince1970: 0), heartbeatAt: nil,
                    isAlive: !state.suspended.contains(run))
            }
            .sorted { ($0.startedAt, $0.runID) < ($1.startedAt, $1.runID) }
        }
    }

    public func deliveries(matching filter: DeliveryFilter) async throws(SignalError) -> [DeliveryRecord] {
        state.withLock { state in
            let all = state.deliveries.sorted { $0.key < $1.key }.lazy.map { _, row in
                DeliveryRecord(
                    key: row.key, consumerID: row.consumerID, component: row.component, lifetime: row.lifetime,
                    handlerID: row.handlerID, signalID: row.signalID, revision: row.revision, state: row.state,
                    ownerRun: row.ownerRun, claimedBy: row.claimedBy,
                    claimedAt: row.state == .claimed ? row.claimedAt : nil,
                    attempts: row.attempt, started: row.started,
                    previousAttemptCrashed: row.crashed, dueAt: row.notBefore, lastError: row.lastError,
                    madeAt: row.madeAt, handler: filter.includesBodies ? row.handler : nil,
                    payload: filter.includesBodies ? row.payload : nil)
            }
            .filter { filter.matches($0) }
            return Array(all.prefix(max(0, filter.limit ?? Int.max)))
        }
    }

    public func deliveryCounts() async throws(SignalError) -> [DeliveryCount] {
        state.withLock { state in
            var counts: [String: [DeliveryFilter.State: DeliveryCount]] = [:]
            for row in state.deliveries.values {
                let kind = DeliveryFilter.state(of: row.state, lastError: row.lastError)
                var count =
                    counts[row.component]?[kind]
                    ?? DeliveryCount(component: row.component, state: kind, count: 0, oldestMadeAt: row.madeAt)
                count.count += 1
                count.oldestMadeAt = min(count.oldestMadeAt, row.madeAt)
                counts[row.component, default: [:]][kind] = count
            }
            return counts.values.flatMap(\.values)
        }
    }

    public func signalRecords() async throws(SignalError) -> [SignalRecord] {
        state.withLock { state in
            state.signals.map { id, signal in
                SignalRecord(
                    signalID: id, revision: signal.revision, postedAt: signal.postedAt, keptUntil: signal.keepUntil)
            }
            .sorted { $0.signalID < $1.signalID }
        }
    }

    public func completions(matching filter: CompletionFilter) async throws(SignalError) -> [CompletionEntry] {
        state.withLock { state in
            let all = state.completions.lazy.map { completion in
                CompletionEntry(
                    key: completion.record.key, consumerID: completion.consumerID, signalID: completion.signalID,
                    revision: completion.revision, runID: completion.record.runID, attempt: completion.record.attempt,
                    completedAt: completion.completedAt)
            }
            .filter { filter.matches($0) }
            return Array(all.prefix(max(0, filter.limit ?? Int.max)))
        }
    }
}

// MARK: Promises

extension InMemorySignalStore: PromiseStore {
    public func insertPromise(_ promise: PromiseRecord, applying plan: StorePlan) async throws(SignalError) -> Bool {
        let counts = state.withLock { state -> [Int]? in
            guard state.promises[promise.id] == nil else { return nil }
            state.promises[promise.id] = promise
            return state.run(plan)
        }
        guard let counts else { return false }
        if plan.wakeUp(counts: counts) != nil { wakeAll() }
        return true
    }

    public func promise(_ id: String) async throws(SignalError) -> PromiseRecord? {
        state.withLock { $0.promises[id] }
    }

    public func settlePromise(
        _ id: String, with settlement: PromiseSettlementRecord, ifValueTypeIn valueTypes: [String]?,
        thenPosting post: @escaping @Sendable (PromiseRecord) throws(SignalError) -> PromiseSettlementPost?
    ) async throws(SignalError) -> PromiseRecord? {
        let (record, settled, posted) = try state.withLock {
            state throws(SignalError) -> (PromiseRecord?, Bool, PostResult?) in
            guard let stored = state.promises[id] else { return (nil, false, nil) }
            let settled = stored.settled(by: settlement, ifValueTypeIn: valueTypes)
            let record = settled ?? stored
            // Asked before anything changes, so that an error leaves the state as it was.
            let request = try post(record)
            state.promises[id] = record
            let posted = request.map { state.post($0.signalID, payload: $0.payload, keepUntil: nil) }
            return (record, settled != nil, posted)
        }
        if PromiseRecord.wakeUp(settled: settled, record) != nil || (posted?.deliveries ?? 0) > 0 { wakeAll() }
        return record
    }

    public func promises(settled: Bool?) async throws(SignalError) -> [PromiseRecord] {
        state.withLock { state in
            state.promises.values.filter { settled == nil || $0.isSettled == settled }
                .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }
    }

    public func removePromises(keptUntilBefore now: Date) async throws(SignalError) -> Int {
        state.withLock { state in
            let before = state.promises.count
            state.promises = state.promises.filter { $0.value.keptUntil.map { $0 >= now } ?? true }
            return before - state.promises.count
        }
    }
}
