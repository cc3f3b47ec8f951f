import Foundation
import HandlerKit

/// A process's signal center for one *component* (the app, its share extension, a daemon…), with a
/// fresh *run id* per start.
///
/// - `register` persists a consumer: a serializable `Handler` for a signal id, with its component
///   and run (never a closure in memory).
/// - `post` (from any process) stores a revision of a signal with a payload of named `Codable`
///   values; each consumer's handler receives them as call-time arguments, plus `deliveryKey`
///   (`String`), `signalID` (`String`) and `signalRevision` (`Int`) when it declares them.
/// - Deliveries run in the registering process while its run is alive, otherwise in the next process
///   of the component that starts (it takes over the dead run's consumers and claims).
///
/// A delivery is *completed* exactly once per consumer and revision, and its handler is never started
/// after it was completed elsewhere: right before each handler call the center marks the attempt
/// started in the store, which succeeds only while the delivery is still claimed by this run and
/// attempt and the run was not taken over. A handler that returned is never run again for it; a
/// handler interrupted by a crash runs again with the same `deliveryKey`, and its interrupted attempt
/// counts (see ``RetryPolicy``).
public final class SignalCenter: Sendable {
    /// How a center behaves.
    public struct Options: Sendable {
        /// Retries of a handler that throws, before its delivery is parked as dead.
        public var retry: RetryPolicy
        /// `true` (default): a task delivers as soon as a process posts (woken through the store);
        /// `false`: deliveries run only when `deliverDue()` is called.
        public var deliversAutomatically: Bool
        /// Deliveries claimed per transaction.
        public var claimBatch: Int
        /// Problems the center survives: those of the automatic delivery task (e.g. a store that stays
        /// busy), and this run found taken over by another process while delivering
        /// (`SignalError.runTakenOver`).
        public var onProblem: (@Sendable (SignalError) -> Void)?
        /// For this package's tests: called at `.afterClaim` and `.beforeCompletion` (e.g. to kill the
        /// process there).
        package var faultHook: (@Sendable (SignalFaultPoint) -> Void)?

        public init(
            retry: RetryPolicy = RetryPolicy(), deliversAutomatically: Bool = true, claimBatch: Int = 16,
            onProblem: (@Sendable (SignalError) -> Void)? = nil
        ) {
            self.retry = retry
            self.deliversAutomatically = deliversAutomatically
            self.claimBatch = max(1, claimBatch)
            self.onProblem = onProblem
        }
    }

    /// The longest component name, in UTF-8 bytes.
    public static let maximumComponentLength = 256

    /// The component this process runs as.
    public let component: String
    /// This start's run id (a fresh UUID, never reused).
    public let runID: String
    /// Where signals are stored.
    public let store: any SignalStore
    /// The registry consumers' handlers are rebuilt with.
    public let registry: HandlerRegistry
    /// What this run took over from runs of its component that were gone when it started.
    public let takeover: TakeoverReport
    let options: Options
    private let state = Locked(State())
    /// The tasks awaiting promises, and the timer of promise deadlines (DurablePromise+Center.swift).
    let promiseWaiters = PromiseWaiters()

    private struct State {
        var stopped = false
        var loop: Task<Void, Never>?
        var listener: (any SignalWakeListener)?
    }

    private init(
        component: String, runID: String, store: any SignalStore, registry: HandlerRegistry,
        takeover: TakeoverReport, options: Options
    ) {
        self.component = component
        self.runID = runID
        self.store = store
        self.registry = registry
        self.takeover = takeover
        self.options = options
    }

    /// Starts a run of `component`: records it with a fresh run id, takes over the component's runs
    /// that are gone, and (by default) starts delivering.
    public static func start(
        component: String, store: any SignalStore, registry: HandlerRegistry = .shared, options: Options = Options()
    ) async throws(SignalError) -> SignalCenter {
        if component.isEmpty { throw .invalidComponent(component, reason: "it is empty") }
        if component.utf8.count > maximumComponentLength {
            throw .invalidComponent(
                component, reason: "it is \(component.utf8.count) bytes long; the limit is \(maximumComponentLength)")
        }
        let runID = UUID().uuidString
        try await store.beginRun(
            runID, component: component, retry: options.retry,
            applying: .startRun(now: Date().timeIntervalSince1970))
        let takeover: TakeoverReport
        do {
            takeover = try await store.takeOverDeadRuns(of: component, by: runID, retry: options.retry)
        } catch {
            try? await store.endRun(
                runID, component: component, applying: Self.retirement(of: runID, retry: options.retry))
            throw error
        }
        let center = SignalCenter(
            component: component, runID: runID, store: store, registry: registry,
            takeover: takeover, options: options)
        if options.deliversAutomatically {
            let listener: any SignalWakeListener
            do {
                listener = try store.makeWakeListener()
            } catch {
                try? await store.endRun(
                    runID, component: component, applying: Self.retirement(of: runID, retry: options.retry))
                throw error
            }
            center.state.withLock { state in
                state.listener = listener
                state.loop = Task { await center.deliverContinuously(listener) }
            }
        }
        await center.keepPromisesReportingProblems()
        return center
    }

    // MARK: Consumers

    /// Registers `handler` as a consumer of `signal`, delivered by this run (or, when `durable` and
    /// this run is gone, by the next process of this component). When the signal was posted with
    /// `UnconsumedPolicy.keep` and is still kept, the consumer receives that revision at once.
    ///
    /// - Throws: `SignalError.invalidHandler` for an invalidated handler or one whose document a
    ///   delivery could not read back (over a limit of `DecodingLimits.default`, e.g. a handler
    ///   rebuilt with larger limits); `.invalidSignalID`; the store's errors. Nothing is stored then.
    @discardableResult
    public func register(
        _ handler: Handler, for signal: SignalID, lifetime: ConsumerLifetime = .durable, delivery: DeliveryMode = .once
    ) async throws(SignalError) -> ConsumerID {
        try checkRunning()
        let signalID = try signal.validated()
        if handler.isInvalidated { throw .invalidHandler(handler: handler.id, reason: "it has been invalidated") }
        let document: [UInt8]
        do {
            document = try handler.storableJSON()
        } catch {
            throw .invalidHandler(handler: handler.id, reason: "a delivery could not read it back: \(error)")
        }
        let consumer = ConsumerRecord(
            id: ConsumerID(UUID().uuidString), signalID: signalID, component: component, runID: runID,
            lifetime: lifetime, mode: delivery, handler: document, handlerID: handler.id)
        _ = try await store.apply(.register(consumer, now: Date().timeIntervalSince1970))
        return consumer.id
    }

    /// Removes a consumer and its deliveries that have not started; `false` if it does not exist.
    public func remove(_ consumer: ConsumerID) async throws(SignalError) -> Bool {
        let plan = StorePlan.removeConsumer(consumer, now: Date().timeIntervalSince1970)
        return plan.removedConsumer(counts: try await store.apply(plan))
    }

    /// The consumers of this component.
    public func consumers() async throws(SignalError) -> [ConsumerRecord] {
        try await store.consumers(of: component)
    }

    // MARK: Posting

    /// Posts a new revision of `signal`. The result says how many consumers receive it; with none,
    /// `ifUnconsumed` decides whether it is kept for a consumer that registers later.
    ///
    /// - Throws: `SignalError.invalidSignalID`, `.invalidPayload`; `.payloadTooDeep` or
    ///   `.payloadTooLarge` for a payload a delivery could not read (nothing was posted);
    ///   `.storeBusy` (nothing was posted; safe to post again) and the other store errors.
    @discardableResult
    public func post(
        _ signal: SignalID, payload: SignalPayload = SignalPayload(), ifUnconsumed: UnconsumedPolicy = .report
    ) async throws(SignalError) -> PostResult {
        try checkRunning()
        let signalID = try signal.validated()
        let encoded = try payload.encoded(for: signalID)
        var keepUntil: Date?
        if case .keep(let duration) = ifUnconsumed { keepUntil = Date().addingTimeInterval(duration.seconds) }
        return try await store.post(signalID, payload: encoded, keepUntil: keepUntil)
    }

    // MARK: Dead deliveries

    /// The dead deliveries of this component (or, with `allComponents`, of every component).
    public func deadDeliveries(allComponents: Bool = false) async throws(SignalError) -> [DeadDelivery] {
        try await store.deadDeliveries(of: allComponents ? nil : component)
    }

    /// Makes a dead delivery pending again with a fresh count of attempts; `false` if no dead delivery
    /// has this key. Runs of this component that are gone are taken over first, so that a dead
    /// delivery of theirs is requeued to this run.
    public func requeue(_ key: DeliveryKey) async throws(SignalError) -> Bool {
        if !isStopped { _ = try await store.takeOverDeadRuns(of: component, by: runID, retry: options.retry) }
        let plan = StorePlan.requeue(key, now: Date().timeIntervalSince1970)
        return try await store.apply(plan).first ?? 0 > 0
    }

    /// Takes over runs of this component that are gone now (a start does this by itself): for a
    /// long-running process that should also deliver for processes of its component that crashed.
    @discardableResult
    public func takeOverDeadRuns() async throws(SignalError) -> TakeoverReport {
        try checkRunning()
        return try await store.takeOverDeadRuns(of: component, by: runID, retry: options.retry)
    }

    // MARK: Stopping

    /// Ends this run: waits for the delivery in progress, gives back claims not completed, removes
    /// consumers tied to the run. Durable consumers stay for the next process of the component.
    public func stop() async throws(SignalError) {
        let (loop, listener, wasStopped) = state.withLock { state in
            defer { state.stopped = true }
            return (state.loop, state.listener, state.stopped)
        }
        guard !wasStopped else { return }
        promiseWaiters.stopTimer()
        listener?.close()
        await loop?.value
        try await store.endRun(runID, component: component, applying: Self.retirement(of: runID, retry: options.retry))
    }

    /// The plan that ends run `runID` cleanly; a claim it started and did not settle counts by `retry`.
    private static func retirement(of runID: String, retry: RetryPolicy) -> StorePlan {
        .retire(runID, takenOverBy: nil, retry: retry, now: Date().timeIntervalSince1970)
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    private func checkRunning() throws(SignalError) {
        if isStopped { throw .centerStopped(component: component, runID: runID) }
    }
}
