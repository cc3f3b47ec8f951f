/// The lifecycle of a ``SignalCenter`` as a value: its phase, generation, store calls in progress,
/// running handlers, grace deadline and run replaced after a takeover, changed only by its events.
///
/// Each event is a mutating function that returns what the center must do (an action): resume the
/// tasks waiting at the suspension gate, end or start the automatic delivery task, refuse a call
/// with a given `SignalError`, wait for store calls to drain… The machine does no I/O, reads no
/// clock (times come in as values) and holds no task, listener or continuation: ``SignalCenter``
/// keeps it in its lock next to those, feeds it the events and performs the actions.
///
/// A late or illegal event (a handler settling after a stop, a resume of an active center, a
/// suspension of a suspended one, a pass of an earlier generation) gets the action its function
/// documents and never traps.
package struct CenterLifecycle: Sendable {
    /// Where the center is in its life.
    package enum Phase: Sendable, Hashable, CaseIterable {
        /// Delivering, and taking calls.
        case active
        /// Between the start of a suspension (or of a graceful stop) and the end of its grace period:
        /// nothing is claimed or started; handlers that run may still settle until the grace ends.
        case suspending
        /// Suspended (or ending the run of a graceful stop): settlements wait at the gate.
        case suspended
        /// Stopped: nothing is claimed or started again; calls that need a run are refused.
        case stopped
    }

    /// The component, for the errors the machine answers with.
    package let component: String
    /// Whether the center runs an automatic delivery task (`Options.deliversAutomatically`).
    package let deliversAutomatically: Bool
    /// The current run; it changes when the run is found taken over and the center carries on.
    package internal(set) var runID: String
    /// What the current run took over when it began.
    package internal(set) var takeover: TakeoverReport
    package internal(set) var phase = Phase.active
    /// Grows at each suspension or graceful stop: a delivery pass of an earlier generation claims
    /// and starts nothing.
    package internal(set) var generation = 0
    /// Store calls in progress (of the app's calls, of delivery passes and of settlements).
    package internal(set) var storeCalls = 0
    /// The deliveries whose handlers run now (from their start to their settlement), by row id.
    package internal(set) var running: [Int64: DeliveryKey] = [:]
    /// While suspending: the end of the grace period, after which a settlement waits at the gate.
    package internal(set) var graceEnds: ContinuousClock.Instant?
    /// The run-lifetime consumers of the run, as found when it was suspended.
    package internal(set) var runConsumers: [ConsumerID] = []
    /// The run, when a delivery pass found it taken over while the center was active: the next pass
    /// carries on as a new run.
    package internal(set) var takenOverRun: String?
    /// Whether a delivery pass is replacing the run that was taken over now.
    package internal(set) var replacingRun = false

    /// A center's lifecycle as it starts: active, generation 0, run `runID`.
    package init(component: String, runID: String, takeover: TakeoverReport, deliversAutomatically: Bool) {
        self.component = component
        self.runID = runID
        self.takeover = takeover
        self.deliversAutomatically = deliversAutomatically
    }

    package var isStopped: Bool { phase == .stopped }

    /// Whether the center is suspended, or suspending (``SignalCenter/isSuspended``).
    package var isSuspended: Bool { phase == .suspending || phase == .suspended }

    /// Whether a delivery pass of `generation` may claim and start deliveries.
    package func allows(_ generation: Int) -> Bool {
        phase == .active && self.generation == generation
    }

    /// Whether the current run was found taken over and is not replaced yet.
    package var isTakenOver: Bool { takenOverRun != nil && takenOverRun == runID }

    /// Whether nothing runs any more: no handler and no store call.
    package var isDrained: Bool { running.isEmpty && storeCalls == 0 }

    var suspendedError: SignalError { .suspended(component: component, runID: runID) }
    var stoppedError: SignalError { .centerStopped(component: component, runID: runID) }

    // MARK: Store calls

    /// What to do with a call.
    package enum CallAction: Sendable, Hashable {
        /// Make it, with this run id; its end is ``storeCallEnded()``.
        case proceed(runID: String)
        /// Throw this error (a suspended center's calls throw `SignalError.suspended`).
        case refuse(SignalError)
    }

    /// An app's call on the store begins: refused while suspending or suspended, otherwise counted
    /// (also once stopped: reading the store stays possible).
    package mutating func storeCallRequested() -> CallAction {
        if isSuspended { return .refuse(suspendedError) }
        storeCalls += 1
        return .proceed(runID: runID)
    }

    /// A store call (of any kind) ended. Without a call in progress it changes nothing.
    package mutating func storeCallEnded() {
        storeCalls = max(0, storeCalls - 1)
    }

    /// What `deliverDue()` does.
    package enum PassAction: Sendable, Hashable {
        /// Run a delivery pass of this generation (once stopped, it claims nothing).
        case pass(generation: Int)
        /// Throw this error.
        case refuse(SignalError)
    }

    /// `deliverDue()` is called: a pass of the current generation, refused while suspending or
    /// suspended.
    package func deliverDueRequested() -> PassAction {
        isSuspended ? .refuse(suspendedError) : .pass(generation: generation)
    }

    /// A delivery pass of `generation` asks to claim or start: `.proceed` counts a store call;
    /// `nil` when the pass must end (stopped, suspended, or an earlier generation).
    package mutating func passCallRequested(generation: Int) -> String? {
        guard allows(generation) else { return nil }
        storeCalls += 1
        return runID
    }

    // MARK: Handlers

    /// A pass of `generation` is about to call the handler of delivery `row`: `true` when it may
    /// (the delivery counts as running until ``handlerSettled(row:)``), `false` when the pass ends.
    package mutating func handlerStarting(row: Int64, key: DeliveryKey, generation: Int) -> Bool {
        guard allows(generation) else { return false }
        running[row] = key
        return true
    }

    /// The delivery `row`'s handler returned and its settlement ended. A row not running (a late
    /// event) changes nothing.
    package mutating func handlerSettled(row: Int64) {
        running[row] = nil
    }

    // MARK: The suspension gate

    /// What a task at the suspension gate does.
    package enum GateAction: Sendable, Hashable {
        /// Go on (a settlement's store call is counted).
        case proceed
        /// Wait until the gate opens (an action with `openGate`), then ask again.
        case wait
    }

    /// A handler that returned asks to settle its delivery at `now`: it waits while suspended, or
    /// while suspending once the grace period has passed; otherwise its store call is counted.
    package mutating func settlementArrives(at now: ContinuousClock.Instant) -> GateAction {
        let graceEnded = graceEnds.map { $0 <= now } ?? false
        if phase == .suspended || phase == .suspending && graceEnded { return .wait }
        storeCalls += 1
        return .proceed
    }

    /// A task that awaits a promise asks to reach the store: it waits while suspending or suspended.
    package func promiseCallArrives() -> GateAction {
        isSuspended ? .wait : .proceed
    }
}
