import Foundation

/// The driver protocol: where signals, consumers and deliveries live, and how processes wake each
/// other. `SignalCenter` is the API apps use; it makes every decision (what to claim, when to retry,
/// when a delivery is dead, which runs to take over, which rows an operation changes) and calls the
/// store for each step. Stores: ``InMemorySignalStore`` (here), `SQLiteSignalStore`
/// (`HandlerKitSignalsSQLite`) and `PostgresSignalStore` (`HandlerKitSignalsPostgres`).
///
/// A store implements primitives: the core's programs (`perform(_:)`: steps and reads in one
/// transaction), the core's reads (`read(_:)`), a wake listener, and how runs prove they are alive
/// (``SignalRunLiveness``). Everything else (`post(_:payload:keepUntil:)`, `apply(_:)`, `claim(_:)`,
/// `start(_:)`, `complete(_:endingConsumer:thenStarting:)`, `consumers(of:)`, `runStatus(of:)`,
/// ``statistics()``, the takeover of dead runs, …) the core builds on them.
///
/// Every requirement is one atomic transaction (or none): a crash, a busy database or an error leaves
/// either all of its changes or none. <doc:HowADeliveryMoves> states each one's preconditions,
/// effects and guarantees; `HandlerKitSignalsTestKit` checks a store against them.
///
/// An app only makes a store and passes it to ``SignalCenter/start(component:store:registry:options:)``:
/// the requirements besides ``location`` are the `SignalStoreDriver` SPI, which a store's sources
/// import with `@_spi(SignalStoreDriver) import HandlerKitSignals`.
public protocol SignalStore: SignalRunLiveness {
    /// Where the store is, for messages (a path or a URL without credentials).
    var location: String { get }

    /// Runs `program` in one transaction (its steps, and its reads, each chosen by the core from what
    /// the ones before answered) and returns its answer; then wakes the centers it names. A store on
    /// `SignalTables` runs it with `SignalTables.perform(_:)`.
    @_spi(SignalStoreDriver)
    func perform<Result: Sendable>(_ program: StoreProgram<Result>) async throws(SignalError) -> Result

    /// Answers `read` (one of the core's reads, `StoreRead`) in one read transaction: a SQL store runs
    /// `read.sql`'s statement and makes its value of the rows. The reads (`consumers(of:)`,
    /// `runStatus(of:)`, `statistics()`, …) are built on it.
    @_spi(SignalStoreDriver)
    func read<Value: Sendable>(_ read: StoreRead<Value>) async throws(SignalError) -> Value

    /// A listener that wakes when any process posts, registers or requeues.
    @_spi(SignalStoreDriver)
    func makeWakeListener() throws(SignalError) -> any SignalWakeListener
}

extension SignalRunLiveness {
    @_spi(SignalStoreDriver)
    public var livenessCheckInterval: Duration? { nil }
}

extension SignalStore {
    /// Takes over every run of `component` other than `runID` that is gone (``takeOver(_:of:applying:)``
    /// with the core's retirement plan, for each run ``runs(of:)`` lists), and reports what changed:
    /// a run whose record was still there died (``TakeoverReport/deadRuns``), one without a record had
    /// ended cleanly and left durable consumers or deliveries (``TakeoverReport/endedRuns``).
    /// Started attempts of the runs taken over count by `retry` (the taker's policy). Runs that are
    /// alive are left alone, and so is a run whose takeover changed nothing of it (another taker
    /// was first).
    @_spi(SignalStoreDriver)
    public func takeOverDeadRuns(
        of component: String, by runID: String, retry: RetryPolicy
    ) async throws(SignalError) -> TakeoverReport {
        var report = TakeoverReport()
        for run in try await runs(of: component).all(besides: runID) {
            let plan = StorePlan.retire(run, takenOverBy: runID, retry: retry, now: Date().timeIntervalSince1970)
            guard let counts = try await takeOver(run, of: component, applying: plan),
                let taken = plan.takeoverReport(counts: counts)
            else { continue }
            report.add(taken)
        }
        return report
    }
}

extension SignalStore {
    /// How many runs, consumers, signal records and deliveries the store holds.
    public func statistics() async throws(SignalError) -> SignalStoreStatistics {
        try await read(StoreReads.statistics)
    }

    /// The runs the store knows of for `component`: those recorded, and those its consumers and its
    /// deliveries name (a run may be gone while they remain).
    @_spi(SignalStoreDriver)
    public func runs(of component: String) async throws(SignalError) -> RunsOfComponent {
        try await read(StoreReads.runs(of: component))
    }

    /// The consumers of a component, or of all components.
    @_spi(SignalStoreDriver)
    public func consumers(of component: String?) async throws(SignalError) -> [ConsumerRecord] {
        try await read(StoreReads.consumers(of: component))
    }

    /// The deliveries of `runID` not yet completed, and when the earliest pending one is due; with
    /// `queue` (the owner of its component's work queue), whether the queue has such deliveries and
    /// when its earliest pending one is due.
    @_spi(SignalStoreDriver)
    public func runStatus(of runID: String, queue: String? = nil) async throws(SignalError) -> RunStatus {
        try await read(StoreReads.runStatus(of: runID, queue: queue))
    }

    /// The dead deliveries of a component, or of all components.
    @_spi(SignalStoreDriver)
    public func deadDeliveries(of component: String?) async throws(SignalError) -> [DeadDelivery] {
        try await read(StoreReads.deadDeliveries(of: component))
    }

    /// The completions recorded for `key` (the store keeps a history of completions for a while).
    @_spi(SignalStoreDriver)
    public func completions(of key: DeliveryKey) async throws(SignalError) -> [CompletionRecord] {
        try await read(StoreReads.completions(of: key))
    }
}

extension SignalStore {
    /// Posts a revision of `signalID` with `payload` (a JSON object): one delivery per consumer that
    /// takes it, none started before `notBefore` when given. `keepUntil` keeps it for consumers that
    /// register later (``perform(_:)``).
    @_spi(SignalStoreDriver)
    public func post(
        _ signalID: String, payload: [UInt8], keepUntil: Date?, notBefore: Date? = nil
    ) async throws(SignalError) -> PostResult {
        let posting = Posting(signalID: signalID, payload: payload, keepUntil: keepUntil, notBefore: notBefore)
        return try await perform(.post(posting, now: Date().timeIntervalSince1970))
    }

    /// Makes the steps of `plan` in order in one transaction and returns the rows each changed; then
    /// wakes the centers `StorePlan.wakeUp(counts:)` names (``perform(_:)``).
    @_spi(SignalStoreDriver)
    public func apply(_ plan: StorePlan) async throws(SignalError) -> [Int] {
        try await perform(plan.program)
    }

    /// Marks a claimed delivery's attempt *started*, right before its handler is called, if it is
    /// still claimed by the same run and attempt and the run is still recorded (not taken over)
    /// (``perform(_:)``). Marking it again is harmless. `StartOutcome.started` is the only answer
    /// that lets the handler run; an error means it must not run either.
    @_spi(SignalStoreDriver)
    public func start(_ delivery: ClaimedDelivery) async throws(SignalError) -> StartOutcome {
        try await perform(.start(delivery))
    }

    /// Completes a claimed delivery if it is still claimed by the same run and attempt: removes it and
    /// records the completion; with `endingConsumer`, also removes its consumer and then the signal's
    /// record when no consumer uses it and it is not kept. Not completed when the claim was lost
    /// (nothing changed then). With `next` (the delivery the center runs next), also marks it started
    /// in the same transaction, exactly as ``start(_:)`` does, whether or not `delivery` completed
    /// (the core's program, ``perform(_:)``). A mark that fails for a reason of the store's own (on
    /// SQLite, the run's lock file) does not undo the completion, whose handler returned: `next` is
    /// left unmarked (`CompletionOutcome.next` is `nil`), and the center marks it with ``start(_:)``.
    @_spi(SignalStoreDriver)
    public func complete(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, thenStarting next: ClaimedDelivery?
    ) async throws(SignalError) -> CompletionOutcome {
        try await perform(
            .complete(
                delivery, endingConsumer: endingConsumer, thenStarting: next, now: Date().timeIntervalSince1970))
    }

    /// Claims up to `request.limit` deliveries of `request.runID` that `request` takes, oldest
    /// first, and returns them in `ClaimedDelivery.runningOrder(_:)`: the run's due pending
    /// deliveries, and with `ClaimRequest.reclaimingLost` also its claims the center no longer holds;
    /// never one of `ClaimRequest.inProgress`. With `ClaimRequest.startingFirst`, also marks the
    /// first of them started in the same transaction, exactly as ``start(_:)`` does
    /// (`ClaimedBatch.firstStart`): the first handler of a delivery pass then waits for one
    /// transaction, not two. A run that is no longer recorded claims nothing (a store that finds this
    /// out while deliveries of the run are due may say so: `firstStart` `.runTakenOver`). The core's
    /// program (``perform(_:)``).
    @_spi(SignalStoreDriver)
    public func claim(_ request: ClaimRequest) async throws(SignalError) -> ClaimedBatch {
        try await perform(.claim(request, now: Date().timeIntervalSince1970))
    }

    /// Claims up to `limit` due deliveries of `runID` (``claim(_:)``, starting none).
    @_spi(SignalStoreDriver)
    public func claim(for runID: String, limit: Int) async throws(SignalError) -> [ClaimedDelivery] {
        try await claim(ClaimRequest(runID: runID, limit: limit, startingFirst: false)).deliveries
    }

    /// Claims up to `limit` due deliveries of `runID` and marks the one that runs first started
    /// (``claim(_:)``).
    @_spi(SignalStoreDriver)
    public func claimStartingFirst(for runID: String, limit: Int) async throws(SignalError) -> ClaimedBatch {
        try await claim(ClaimRequest(runID: runID, limit: limit, startingFirst: true))
    }

    /// Gives a claimed delivery back after its attempt failed, if its run and attempt still hold its
    /// claim: the core's `StorePlan` (pending again from `retryAt`, or dead with `reason` when
    /// `retryAt` is `nil`), applied by ``apply(_:)``. `false` when the claim was lost.
    package func release(
        _ delivery: ClaimedDelivery, reason: String, retryAt: Date?
    ) async throws(SignalError) -> Bool {
        let plan = StorePlan.release(delivery, reason: reason, retryAt: retryAt)
        return plan.releasedClaim(counts: try await apply(plan))
    }
}

/// Wakes a signal center when another process (or this one) changed what it may deliver.
@_spi(SignalStoreDriver)
public protocol SignalWakeListener: AnyObject, Sendable {
    /// Returns when a wake-up arrived since the last call, when `deadline` passes, or when closed.
    @_spi(SignalStoreDriver)
    func next(deadline: ContinuousClock.Instant) async
    /// Stops listening; a waiting `next` returns.
    @_spi(SignalStoreDriver)
    func close()
}

/// How a store's runs prove they are alive, and how a gone run is taken over exclusively: the half of
/// the driver protocol that owns a store's locks, files or leases (``SignalStore`` refines it). Each
/// requirement applies the core's `StorePlan` in the transaction that records, retires or takes over
/// the run; the core decides what the plan holds and when to look for gone runs.
public protocol SignalRunLiveness: Sendable {
    /// Starts a run of `component`: takes the proof that it is alive for as long as this process
    /// lives (a lock the kernel or the server releases when the process dies), records the run, and
    /// applies `plan` in the transaction that records it.
    @_spi(SignalStoreDriver)
    func beginRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError)

    /// Ends a run cleanly: applies `plan` (the core's retirement of the run), then releases the
    /// run's proof of life.
    @_spi(SignalStoreDriver)
    func endRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError)

    /// Suspends a run (``SignalCenter/suspend(finishingWithin:)``): applies `plan` (the core's give-back
    /// of the claims whose handlers do not run), then releases the run's proof of life and everything
    /// this store object holds open that none of its other runs needs (an SQLite store closes its
    /// database connection: no lock on any file of the store is left). The run's record stays: the
    /// run counts as gone, and another process of its component may take it over.
    /// Returns the rows each step of `plan` changed.
    @_spi(SignalStoreDriver)
    func suspendRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) -> [Int]

    /// Resumes a suspended run: takes its proof of life again (waiting while a taker holds it during
    /// a takeover), then decides in one transaction: when the run is still recorded, applies `plan`
    /// and returns `true`; when it was taken over (its record is gone), returns `false` and holds
    /// nothing for it.
    @_spi(SignalStoreDriver)
    func resumeRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> Bool

    /// When `run` is gone (its proof of life lapsed), applies `plan` (the core's takeover of it) in
    /// one transaction while holding what keeps other takers of `run` out, and returns the rows each
    /// step changed. `nil`, changing nothing, while `run` is alive.
    @_spi(SignalStoreDriver)
    func takeOver(_ run: String, of component: String, applying plan: StorePlan) async throws(SignalError) -> [Int]?

    /// How often a center's delivery passes look for runs of its component that are gone and take
    /// them over (`SignalStore.takeOverDeadRuns(of:by:retry:)`), or `nil` when its runs are taken over
    /// only when a run starts or resumes and on request (`SignalCenter.takeOverDeadRuns()`).
    /// A store whose proof of life can lapse while its process lives (a lease on a server) gives an
    /// interval of the order of that lease. The center schedules the looks: a store takes nothing over
    /// by itself. `nil` unless a store says otherwise.
    @_spi(SignalStoreDriver)
    var livenessCheckInterval: Duration? { get }
}
