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
    private let name: String
    public var location: String { "memory:\(name)" }
    /// The tables, behind their lock (the inspection reads of `HandlerKitSignalsInspection` read them too).
    package let state: Locked<SignalTables>
    private let listeners = Locked<[ObjectIdentifier: InMemoryWakeListener]>([:])

    /// An empty store; `name` only appears in messages.
    public init(name: String = "signals", completionHistory: Duration = .seconds(86_400)) {
        self.name = name
        state = Locked(SignalTables(completionHistory: completionHistory))
    }

    /// Makes `operation` on the tables under their lock, then wakes the centers its answer names.
    private func change<Value, Failure: Error>(
        _ operation: (inout SignalTables) throws(Failure) -> SignalTables.Answer<Value>
    ) throws(Failure) -> Value {
        let answer = try state.withLock(operation)
        if answer.wakeUp != nil { wakeAll() }
        return answer.value
    }

    // MARK: Runs

    @_spi(SignalStoreDriver)
    public func beginRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) {
        _ = change { $0.beginRun(runID, component: component, applying: plan) }
    }

    @_spi(SignalStoreDriver)
    public func endRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        _ = change { $0.endRun(runID, component: component, applying: plan) }
    }

    @_spi(SignalStoreDriver)
    public func suspendRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int] {
        change { $0.suspendRun(runID, component: component, applying: plan) }
    }

    @_spi(SignalStoreDriver)
    public func resumeRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> Bool {
        change { $0.resumeRun(runID, component: component, applying: plan) }
    }

    /// A run is gone once its `endRun` removed it (nothing outlives the object), or while it is suspended.
    @_spi(SignalStoreDriver)
    public func takeOver(
        _ run: String, of component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int]? {
        change { $0.takeOver(run, of: component, applying: plan, isAlive: $0.isRecordedAndRunning(run)) }
    }

    @_spi(SignalStoreDriver)
    public func perform<Result: Sendable>(_ program: StoreProgram<Result>) async throws(SignalError) -> Result {
        change { $0.perform(program) }
    }

    // MARK: Reads

    @_spi(SignalStoreDriver)
    public func read<Value: Sendable>(_ read: StoreRead<Value>) async throws(SignalError) -> Value {
        state.withLock { $0.read(read) }
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
