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
    /// How long completions stay in the history (`completions(of:)`).
    public let completionHistory: Duration
    public var location: String { "memory:\(name)" }
    /// The tables, behind their lock (the inspection reads of `HandlerKitSignalsInspection` read them too).
    package let state: Locked<SignalTables>
    private let listeners = Locked<[ObjectIdentifier: InMemoryWakeListener]>([:])

    /// An empty store; `name` only appears in messages.
    public init(name: String = "signals", completionHistory: Duration = .seconds(86_400)) {
        self.name = name
        self.completionHistory = completionHistory
        state = Locked(SignalTables(completionHistory: completionHistory.seconds))
    }

    // MARK: Runs

    @_spi(SignalStoreDriver)
    public func beginRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) {
        _ = state.withLock { state in
            state.runs[runID] = component
            state.runStarts[runID] = Date()
            return state.run(plan)
        }
    }

    @_spi(SignalStoreDriver)
    public func endRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        _ = try await apply(plan)
        _ = state.withLock { state in
            state.runStarts[runID] = nil
            return state.runs.removeValue(forKey: runID)
        }
    }

    @_spi(SignalStoreDriver)
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

    @_spi(SignalStoreDriver)
    public func resumeRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> Bool {
        let counts = state.withLock { state -> [Int]? in
            state.suspended.remove(runID)
            return state.runs[runID] == nil ? nil : state.run(plan)
        }
        if let counts, plan.wakeUp(counts: counts) != nil { wakeAll() }
        return counts != nil
    }

    /// A run is gone once its `endRun` removed it (nothing outlives the object), or while it is suspended.
    @_spi(SignalStoreDriver)
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

    @_spi(SignalStoreDriver)
    public func apply(_ plan: StorePlan) async throws(SignalError) -> [Int] {
        let counts = state.withLock { $0.run(plan) }
        if plan.wakeUp(counts: counts) != nil { wakeAll() }
        return counts
    }

    // MARK: Posting

    @_spi(SignalStoreDriver)
    public func post(_ signalID: String, payload: [UInt8], keepUntil: Date?) async throws(SignalError) -> PostResult {
        let result = state.withLock { $0.post(signalID, payload: payload, keepUntil: keepUntil) }
        if result.deliveries > 0 { wakeAll() }
        return result
    }

    // MARK: Delivering

    @_spi(SignalStoreDriver)
    public func claim(_ request: ClaimRequest) async throws(SignalError) -> ClaimedBatch {
        state.withLock { state in
            let deliveries = ClaimedDelivery.runningOrder(state.claim(request))
            let first = request.startingFirst ? deliveries.first : nil
            return ClaimedBatch(deliveries: deliveries, firstStart: first.map { state.start($0) })
        }
    }

    @_spi(SignalStoreDriver)
    public func start(_ delivery: ClaimedDelivery) async throws(SignalError) -> StartOutcome {
        state.withLock { $0.start(delivery) }
    }

    @_spi(SignalStoreDriver)
    public func complete(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, thenStarting next: ClaimedDelivery?
    ) async throws(SignalError) -> CompletionOutcome {
        state.withLock { state in
            let completed = state.complete(delivery, endingConsumer: endingConsumer)
            return CompletionOutcome(completed: completed, next: next.map { state.start($0) })
        }
    }

    // MARK: Reads

    @_spi(SignalStoreDriver)
    public func read<Value: Sendable>(_ read: StoreRead<Value>) async throws(SignalError) -> Value {
        state.withLock { read.tables($0) }
    }

    // MARK: Wake-ups

    @_spi(SignalStoreDriver)
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

extension InMemorySignalStore: PromiseStore {
    @_spi(SignalStoreDriver)
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

    @_spi(SignalStoreDriver)
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

}
