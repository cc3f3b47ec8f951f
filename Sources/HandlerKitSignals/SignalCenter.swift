import CoreMetrics
import Foundation
import HandlerKit
import Logging
import Tracing

/// A process's signal center for one *component* (the app, its share extension, a daemon…), with a
/// fresh *run id* per start.
///
/// - `register` persists a consumer: a serializable `Handler` for a signal id, with its component
///   and run (never a closure in memory).
/// - `post` (from any process) stores a revision of a signal with a payload of named `Codable`
///   values; each consumer's handler receives them as call-time arguments, plus `deliveryKey`
///   (`String`), `signalID` (`String`), `signalRevision` (`Int`), `signalCenter` (this center) and
///   the values of ``Options/context`` when it declares them.
/// - Deliveries run in the registering process while its run is alive, otherwise in the next process
///   of the component that starts (it takes over the dead run's consumers and claims).
///
/// A delivery is *completed* exactly once per consumer and revision, and its handler is never started
/// after it was completed elsewhere: right before each handler call the center marks the attempt
/// started in the store, which succeeds only while the delivery is still claimed by this run and
/// attempt and the run was not taken over. A handler that returned is never run again for it; a
/// handler interrupted by a crash runs again with the same `deliveryKey`, and its interrupted attempt
/// counts (see ``RetryPolicy``).
///
/// An iOS app or extension suspends its center before it is suspended itself
/// (``suspend(finishingWithin:)``), so that it holds no lock on the store's files, and resumes it
/// when it is active again (``resume()``). While it is suspended, every call that reaches the store
/// throws `SignalError.suspended`.
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
        /// How many deliveries of the component's work queue (consumers registered with
        /// `ConsumerLifetime.queue`) this center runs at once: 4 by default. It claims only as many
        /// as it has free workers, so the rest go to the component's other processes. The other
        /// deliveries of the run run one at a time, in the order posted, besides these.
        public var queueConcurrency: Int
        /// The values of this process that every handler the center runs receives as call-time
        /// arguments by parameter name: a database, an HTTP client (``HandlerContext``).
        public var context: HandlerContext
        /// Problems the center survives: those of the automatic delivery task (e.g. a store that stays
        /// busy), and this run found taken over by another process while delivering or when resumed
        /// (`SignalError.runTakenOver`).
        public var onProblem: (@Sendable (SignalError) -> Void)?
        /// Where the center logs, with the metadata keys `handlerkit.component`, `handlerkit.run`
        /// and, for a delivery, `handlerkit.signal`, `handlerkit.revision`, `handlerkit.delivery_key`
        /// and `handlerkit.attempt` (and `handlerkit.handler` when its handler threw; see
        /// <doc:RunningOnAServer>). A handler that throws is logged at `warning`, a delivery that is
        /// dead at `error`; what the center does itself, at `info` and below. By default the
        /// task-local `Logger.current` of the code that makes the options.
        public var logger: Logger
        /// Where the center's metrics go (``SignalMetricNames``). By default `MetricsSystem.factory`
        /// as the code that makes the options sees it (the task-local factory of `withMetricsFactory`,
        /// or the one the process bootstrapped).
        public var metricsFactory: any MetricsFactory
        /// For this package's tests: called at `.afterClaim` and `.beforeCompletion` (e.g. to kill the
        /// process there).
        package var faultHook: (@Sendable (SignalFaultPoint) -> Void)?

        public init(
            retry: RetryPolicy = RetryPolicy(), deliversAutomatically: Bool = true, claimBatch: Int = 16,
            queueConcurrency: Int = 4, context: HandlerContext = HandlerContext(),
            onProblem: (@Sendable (SignalError) -> Void)? = nil, logger: Logger = Logger.current,
            metricsFactory: any MetricsFactory = MetricsSystem.factory
        ) {
            self.retry = retry
            self.deliversAutomatically = deliversAutomatically
            self.claimBatch = max(1, claimBatch)
            self.queueConcurrency = max(1, queueConcurrency)
            self.context = context
            self.onProblem = onProblem
            self.logger = logger
            self.metricsFactory = metricsFactory
        }
    }

    /// The longest component name, in UTF-8 bytes.
    package static let maximumComponentLength = 256

    /// The longest consumer id given to `register` and idempotency key given to `post`, in UTF-8 bytes.
    static let maximumKeyLength = 256

    /// The component this process runs as.
    public let component: String
    /// This run's id (a fresh UUID, never reused). It changes only when the run is found taken over
    /// (by ``resume()``, or by a delivery): the center then carries on as a new run.
    public var runID: String { state.withLock { $0.lifecycle.runID } }
    /// Where signals are stored. Not public: every change to the store goes through the center, which
    /// fences a handler's start against a delivery its run no longer holds.
    package let store: any SignalStore
    /// The registry consumers' handlers are rebuilt with.
    public let registry: HandlerRegistry
    /// What this run took over from runs of its component that were gone when it started (or, after
    /// a ``resume()`` or a delivery that found the run taken over, when the new run began).
    public var takeover: TakeoverReport { state.withLock { $0.lifecycle.takeover } }
    let options: Options
    /// The center's metrics, made with `options.metricsFactory`.
    let metrics: SignalMetrics
    let state: Locked<State>
    /// Serializes `suspend`, `resume` and `stop`.
    let transitions = TransitionQueue()
    /// The tasks awaiting promises, and the timer of promise deadlines (DurablePromise+Center.swift).
    let promiseWaiters = PromiseWaiters()

    /// The center's lifecycle machine, and what the shell holds for it: the automatic delivery
    /// tasks, the wake-up listener, and the tasks waiting at the suspension gate.
    struct State {
        var lifecycle: CenterLifecycle
        var loop: Task<Void, Never>?
        /// Automatic delivery tasks of earlier generations that may still be finishing a handler, by
        /// generation (each removes itself when it ends).
        var formerLoops: [Int: Task<Void, Never>] = [:]
        var listener: (any SignalWakeListener)?
        /// Settlements and tasks awaiting promises, waiting for the center to be resumed (or stopped);
        /// each is resumed with `false` and looks again.
        var gate: [CheckedContinuation<Bool, Never>] = []
        /// When a delivery pass next looks for dead runs (`SignalStore.livenessCheckInterval`;
        /// `nil` when the store gives no interval).
        var nextLivenessCheck: ContinuousClock.Instant?
        /// The deliveries the run holds claimed, and whether one of its claims may have been lost.
        var claims = HeldClaims()
        /// The workers of the component's work queue.
        var queueWorkers: QueueWorkers
        /// The completions of the queue's deliveries waiting to be committed together.
        var completions = CompletionGroup()

        /// Takes the tasks waiting at the gate when `open`, to be resumed outside the lock.
        mutating func takeGate(if open: Bool) -> [CheckedContinuation<Bool, Never>] {
            guard open else { return [] }
            defer { gate = [] }
            return gate
        }
    }

    private init(
        component: String, runID: String, store: any SignalStore, registry: HandlerRegistry,
        takeover: TakeoverReport, options: Options
    ) {
        self.component = component
        self.store = store
        self.registry = registry
        self.options = options
        metrics = SignalMetrics(component: component, factory: options.metricsFactory)
        state = Locked(
            State(
                lifecycle: CenterLifecycle(
                    component: component, runID: runID, takeover: takeover,
                    deliversAutomatically: options.deliversAutomatically),
                // The run's start took over what was gone then.
                nextLivenessCheck: store.livenessCheckInterval.map { .now + $0 },
                queueWorkers: QueueWorkers(limit: options.queueConcurrency)))
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
        let takeover = try await beginRun(runID, component: component, store: store, options: options)
        let center = SignalCenter(
            component: component, runID: runID, store: store, registry: registry,
            takeover: takeover, options: options)
        center.log(.debug, "signal center started", ["handlerkit.store": .string(store.location)])
        center.recordTakeover(takeover)
        if options.deliversAutomatically {
            do {
                try center.startDelivering()
            } catch {
                try? await store.endRun(
                    runID, component: component, applying: Self.retirement(of: runID, retry: options.retry))
                throw error
            }
        }
        await center.keepPromisesReportingProblems()
        return center
    }

    /// Records run `runID` and takes over the component's runs that are gone.
    static func beginRun(
        _ runID: String, component: String, store: any SignalStore, options: Options
    ) async throws(SignalError) -> TakeoverReport {
        try await store.beginRun(
            runID, component: component, applying: .startRun(now: Date().timeIntervalSince1970))
        do {
            return try await store.takeOverDeadRuns(of: component, by: runID, retry: options.retry)
        } catch {
            try? await store.endRun(
                runID, component: component, applying: Self.retirement(of: runID, retry: options.retry))
            throw error
        }
    }

    /// Starts the automatic delivery task of the current generation, with a wake-up listener of its own.
    func startDelivering() throws(SignalError) {
        startDelivering(with: try store.makeWakeListener())
    }

    /// Starts the automatic delivery task of the current generation, woken by `listener`.
    func startDelivering(with listener: any SignalWakeListener) {
        state.withLock { state in
            let generation = state.lifecycle.generation
            state.listener = listener
            state.loop = Task { await self.deliverContinuously(listener, generation: generation) }
        }
    }

    // MARK: Consumers

    /// Registers `handler` as a consumer of `signal`, delivered by this run (or, when `durable` and
    /// this run is gone, by the next process of this component; when `queue`, by whichever live run
    /// of this component has a free worker). When the signal was posted with
    /// `UnconsumedPolicy.keep` and is still kept, the consumer receives that revision at once.
    ///
    /// With an `id` of your own (say `thumbs.make`), registering is idempotent: when a consumer
    /// with that id exists, for the same signal, component, lifetime, delivery mode and handler, it is
    /// returned and nothing is registered, so every process of a component can register its work
    /// queue's consumer as it starts, and a request tried again registers once. The existing
    /// consumer keeps the handler's bound arguments it was registered with. Without an `id`, each
    /// call registers a new consumer.
    ///
    /// - Throws: `SignalError.invalidHandler` for an invalidated handler or one whose document a
    ///   delivery could not read back (over a limit of `DecodingLimits.default`, e.g. a handler
    ///   rebuilt with larger limits); `.invalidSignalID`; `.invalidConsumerID` for an `id` that is
    ///   empty or over 256 bytes, or that a different consumer has; the store's errors. Nothing is
    ///   stored then.
    @discardableResult
    public func register(
        _ handler: Handler, for signal: SignalID, lifetime: ConsumerLifetime = .durable, delivery: DeliveryMode = .once,
        id: ConsumerID? = nil
    ) async throws(SignalError) -> ConsumerID {
        try checkRunning()
        let signalID = try signal.validated()
        if let id, id.rawValue.isEmpty || id.rawValue.utf8.count > Self.maximumKeyLength {
            throw .invalidConsumerID(
                id.rawValue,
                reason: id.rawValue.isEmpty ? "it is empty" : "it is over \(Self.maximumKeyLength) bytes long")
        }
        if handler.isInvalidated { throw .invalidHandler(handler: handler.id, reason: "it has been invalidated") }
        let document: [UInt8]
        do {
            document = try handler.storableJSON()
        } catch {
            throw .invalidHandler(handler: handler.id, reason: "a delivery could not read it back: \(error)")
        }
        return try await storeCall { () throws(SignalError) in
            let consumer = ConsumerRecord(
                id: id ?? ConsumerID(UUID().uuidString), signalID: signalID, component: component,
                runID: lifetime == .queue ? queueOwner : runID, lifetime: lifetime, mode: delivery, handler: document,
                handlerID: handler.id)
            if lifetime == .queue { state.withLock { $0.queueWorkers.known = true } }
            guard let existing = try await store.perform(.register(consumer, now: Date().timeIntervalSince1970)) else {
                return consumer.id
            }
            if let difference = existing.differs(from: consumer) {
                throw .invalidConsumerID(consumer.id.rawValue, reason: "a consumer with this id exists \(difference)")
            }
            return existing.id
        }
    }

    /// Removes a consumer and its deliveries that have not started; `false` if it does not exist.
    public func remove(_ consumer: ConsumerID) async throws(SignalError) -> Bool {
        let plan = StorePlan.removeConsumer(consumer, now: Date().timeIntervalSince1970)
        return plan.removedConsumer(
            counts: try await storeCall { () throws(SignalError) in try await store.apply(plan) })
    }

    /// The consumers of this component.
    public func consumers() async throws(SignalError) -> [ConsumerRecord] {
        try await storeCall { () throws(SignalError) in try await store.consumers(of: component) }
    }

    // MARK: Dead deliveries

    /// The dead deliveries of this component (or, with `allComponents`, of every component).
    public func deadDeliveries(allComponents: Bool = false) async throws(SignalError) -> [DeadDelivery] {
        try await storeCall { () throws(SignalError) in
            try await store.deadDeliveries(of: allComponents ? nil : component)
        }
    }

    /// Makes a dead delivery pending again with a fresh count of attempts; `false` if no dead delivery
    /// has this key. Runs of this component that are gone are taken over first, so that a dead
    /// delivery of theirs is requeued to this run.
    public func requeue(_ key: DeliveryKey) async throws(SignalError) -> Bool {
        let plan = StorePlan.requeue(key, now: Date().timeIntervalSince1970)
        return try await storeCall { () throws(SignalError) in
            if !isStopped {
                recordTakeover(try await store.takeOverDeadRuns(of: component, by: runID, retry: options.retry))
            }
            return try await store.apply(plan).first ?? 0 > 0
        }
    }

    /// Takes over runs of this component that are gone now (a start does this by itself): for a
    /// long-running process that should also deliver for processes of its component that crashed.
    ///
    /// A run that was itself taken over takes nothing over: when this run was, the center carries
    /// on as a new run (reporting `SignalError.runTakenOver`), whose start takes over what is gone,
    /// and the report is the new run's ``takeover``.
    @discardableResult
    public func takeOverDeadRuns() async throws(SignalError) -> TakeoverReport {
        try checkRunning()
        let (report, taker) = try await storeCall { () throws(SignalError) -> (TakeoverReport, String) in
            let runID = self.runID
            let report = try await store.takeOverDeadRuns(of: component, by: runID, retry: options.retry)
            return (report, runID)
        }
        recordTakeover(report)
        guard report.deadRuns.isEmpty else { return report }
        let recorded = try await storeCall { () throws(SignalError) in
            try await store.runs(of: component).recorded.contains(taker)
        }
        if recorded { return report }
        noteTakenOver(taker)
        let generation = state.withLock { $0.lifecycle.generation }
        guard try await carryOnIfTakenOver(generation), runID != taker else { return report }
        return takeover
    }

    // MARK: Stopping

    /// Ends this run: waits for the delivery in progress, gives back claims not completed, removes
    /// consumers tied to the run. Durable consumers stay for the next process of the component.
    ///
    /// A suspended center is resumed first (taking its proof of life again) and then ended; when its
    /// run was taken over meanwhile, there is nothing left to end and no new run is made.
    public func stop() async throws(SignalError) {
        try await transitions.run { () throws(SignalError) in try await stopNow() }
    }

    /// What ``stop()`` does, inside a transition.
    func stopNow() async throws(SignalError) {
        // A run taken over while suspended has nothing left to end.
        var ending = true
        switch state.withLock({ $0.lifecycle.stopRequested() }) {
        case .alreadyStopped: return
        case .resumeFirst: ending = try await resumeSuspendedRun(stopping: true) != nil
        case .stop: break
        }
        let (loops, listener) = markStopped()
        listener?.close()
        for loop in loops { await loop.value }
        guard ending else { return }
        let (runID, generation, running) = state.withLock {
            ($0.lifecycle.runID, $0.lifecycle.generation, Array($0.lifecycle.running.keys))
        }
        if promiseWaiters.holdsSettlements(generation: generation) {
            // Settlements held for tasks that never awaited them: given back uncounted, so that the
            // next process of the component runs their fallbacks at once.
            _ = try? await store.apply(.giveBack(runID, keeping: running))
        }
        try await store.endRun(
            runID, component: component, applying: Self.retirement(of: runID, retry: options.retry))
        log(.debug, "signal center stopped")
    }

    /// The plan that ends run `runID` cleanly; a claim it started and did not settle counts by `retry`.
    static func retirement(of runID: String, retry: RetryPolicy) -> StorePlan {
        .retire(runID, takenOverBy: nil, retry: retry, now: Date().timeIntervalSince1970)
    }

    var isStopped: Bool { state.withLock { $0.lifecycle.isStopped } }

    /// Marks the center stopped, lets what waited at the suspension gate go on, and stops the timer
    /// of promise deadlines; returns the delivery tasks and the wake-up listener, to end.
    func markStopped() -> (loops: [Task<Void, Never>], listener: (any SignalWakeListener)?) {
        typealias Ending = (loops: [Task<Void, Never>], listener: (any SignalWakeListener)?)
        let (ending, gate) = state.withLock { state -> (Ending, [CheckedContinuation<Bool, Never>]) in
            guard state.lifecycle.stopped() == .endDelivery else { return (([], nil), []) }
            defer { state.formerLoops = [:] }
            let loops =
                Array(state.formerLoops.values) + (state.loop.map { [$0] } ?? [])
                + Array(state.queueWorkers.tasks.values)
            return ((loops, state.listener), state.takeGate(if: true))
        }
        for waiting in gate { waiting.resume(returning: false) }
        promiseWaiters.stopTimer()
        return ending
    }

    func checkRunning() throws(SignalError) {
        if isStopped { throw .centerStopped(component: component, runID: runID) }
    }

    /// Runs an app's call on the store, unless the center is suspended (a suspension waits for the
    /// calls in progress before it releases the store).
    func storeCall<T>(_ body: () async throws(SignalError) -> T) async throws(SignalError) -> T {
        try await storeCall(suspended: { $0 }, body)
    }

    /// `storeCall(_:)` for a call that throws `Failure`, which `suspended` makes of the error of a
    /// suspended center.
    func storeCall<T, Failure: Error>(
        suspended: (SignalError) -> Failure, _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        if case .refuse(let error) = state.withLock({ $0.lifecycle.storeCallRequested() }) { throw suspended(error) }
        defer { state.withLock { $0.lifecycle.storeCallEnded() } }
        return try await body()
    }
}
