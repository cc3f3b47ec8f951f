extension CenterLifecycle {
    /// A draining that began: nothing is claimed or started from now on.
    package struct Draining: Sendable, Hashable {
        /// The run being drained.
        package var runID: String
        /// How many handlers ran when it began.
        package var runningAtStart: Int
        /// The generation whose automatic delivery task ends: its wake-up listener is closed, and
        /// the task is kept until it has ended (it may still be settling a handler).
        package var endedGeneration: Int
        /// The end of the grace period.
        package var graceEnds: ContinuousClock.Instant

        package init(runID: String, runningAtStart: Int, endedGeneration: Int, graceEnds: ContinuousClock.Instant) {
            self.runID = runID
            self.runningAtStart = runningAtStart
            self.endedGeneration = endedGeneration
            self.graceEnds = graceEnds
        }
    }

    /// What ``SignalCenter/suspend(finishingWithin:)`` does.
    package enum SuspendAction: Sendable, Hashable {
        /// Drain, then suspend the run in the store.
        case drain(Draining)
        /// Nothing: the center is suspended (or suspending) already.
        case alreadySuspended(runID: String)
        /// Throw this error (a stopped center).
        case refuse(SignalError)
    }

    /// What ``SignalCenter/stop(finishingWithin:)`` does.
    package enum GracefulStopAction: Sendable, Hashable {
        /// Drain, then end the run in the store.
        case drain(Draining)
        /// Stop as ``SignalCenter/stop()`` does (the center was not active); `wasStopped` when it had
        /// stopped already.
        case stopAtOnce(runID: String, wasStopped: Bool)
    }

    /// What a reactivated center does (after a resume, or a suspension or graceful stop that failed).
    package struct Reactivation: Sendable, Hashable {
        /// Resume every task waiting at the suspension gate (each asks again).
        package var openGate: Bool
        /// Start an automatic delivery task of the current generation.
        package var startDelivering: Bool

        package init(openGate: Bool, startDelivering: Bool) {
            self.openGate = openGate
            self.startDelivering = startDelivering
        }
    }

    /// A suspension is asked for, with a grace period that ends at `graceEnds`.
    package mutating func suspendRequested(graceEnds: ContinuousClock.Instant) -> SuspendAction {
        switch phase {
        case .stopped: return .refuse(stoppedError)
        case .suspending, .suspended: return .alreadySuspended(runID: runID)
        case .active: return .drain(beginDraining(until: graceEnds))
        }
    }

    /// A graceful stop is asked for, with a grace period that ends at `graceEnds`.
    package mutating func gracefulStopRequested(graceEnds: ContinuousClock.Instant) -> GracefulStopAction {
        switch phase {
        case .active: return .drain(beginDraining(until: graceEnds))
        case .stopped: return .stopAtOnce(runID: runID, wasStopped: true)
        case .suspending, .suspended: return .stopAtOnce(runID: runID, wasStopped: false)
        }
    }

    private mutating func beginDraining(until deadline: ContinuousClock.Instant) -> Draining {
        phase = .suspending
        graceEnds = deadline
        generation += 1
        return Draining(
            runID: runID, runningAtStart: running.count, endedGeneration: generation - 1, graceEnds: deadline)
    }

    /// The grace period passed, or every handler settled: the center is suspended from now on (a
    /// settlement waits at the gate). Returns the deliveries whose handlers still run; the shell
    /// then waits until no store call is in progress. Outside a suspension it changes nothing and
    /// returns nothing.
    package mutating func drainingEnded() -> [Int64: DeliveryKey] {
        guard phase == .suspending else { return [:] }
        phase = .suspended
        return running
    }

    /// The store suspended the run, whose run-lifetime consumers were `runConsumers`. Ignored
    /// unless suspended.
    package mutating func suspensionDone(runConsumers: [ConsumerID]) {
        guard phase == .suspended else { return }
        self.runConsumers = runConsumers
    }

    /// A suspension or a graceful stop failed in the store: the center is active again, as before.
    /// Ignored (nothing to do) unless suspending or suspended.
    package mutating func drainingFailed() -> Reactivation {
        reactivate(delivering: deliversAutomatically)
    }

    /// What ``SignalCenter/resume()`` does.
    package enum ResumeAction: Sendable, Hashable {
        /// Take the suspended run back, keeping the claims of these deliveries (their handlers run).
        case resume(runID: String, keeping: [Int64])
        /// Nothing: the center is not suspended.
        case notSuspended(runID: String)
        /// Throw this error (a stopped center).
        case refuse(SignalError)
    }

    /// A resume is asked for.
    package func resumeRequested() -> ResumeAction {
        switch phase {
        case .stopped: return .refuse(stoppedError)
        case .suspended: return .resume(runID: runID, keeping: Array(running.keys))
        case .active, .suspending: return .notSuspended(runID: runID)
        }
    }

    /// The store gave the suspended run back; the center delivers again (its automatic task only
    /// when not `stopping`). Ignored unless suspending or suspended.
    package mutating func resumedSameRun(stopping: Bool) -> Reactivation {
        reactivate(delivering: deliversAutomatically && !stopping)
    }

    /// The suspended run had been taken over: the center carries on as run `runID`, which took over
    /// `takeover`. Ignored unless suspending or suspended.
    package mutating func resumedAsNewRun(_ runID: String, takeover: TakeoverReport) -> Reactivation {
        guard isSuspended else { return Reactivation(openGate: false, startDelivering: false) }
        self.runID = runID
        self.takeover = takeover
        return reactivate(delivering: deliversAutomatically)
    }

    private mutating func reactivate(delivering: Bool) -> Reactivation {
        guard isSuspended else { return Reactivation(openGate: false, startDelivering: false) }
        phase = .active
        graceEnds = nil
        runConsumers = []
        return Reactivation(openGate: true, startDelivering: delivering)
    }

    /// What ``SignalCenter/stop()`` does.
    package enum StopAction: Sendable, Hashable {
        /// Stop at once (``stopped()``), then end run `runID` in the store.
        case stop
        /// Resume the suspended run first (without delivering), then stop.
        case resumeFirst(runID: String, keeping: [Int64])
        /// Nothing: stopped already.
        case alreadyStopped
    }

    /// A stop is asked for.
    package func stopRequested() -> StopAction {
        switch phase {
        case .stopped: .alreadyStopped
        case .suspending, .suspended: .resumeFirst(runID: runID, keeping: Array(running.keys))
        case .active: .stop
        }
    }

    /// What the shell does when the center stops.
    package enum StoppedAction: Sendable, Hashable {
        /// Close the wake-up listener, end the delivery tasks (of this and earlier generations),
        /// open the gate and stop the timer of promise deadlines.
        case endDelivery
        /// Nothing: stopped already.
        case none
    }

    /// The center stops: nothing is claimed or started again; the gate opens for good.
    package mutating func stopped() -> StoppedAction {
        if phase == .stopped { return .none }
        phase = .stopped
        graceEnds = nil
        return .endDelivery
    }

    // MARK: Takeover while active

    /// A delivery pass found run `runID` taken over: `true` when the shell reports it (the first
    /// time, for the current run); `false` for another run or one noted already.
    package mutating func passFoundTakenOver(_ runID: String) -> Bool {
        guard self.runID == runID, takenOverRun != runID else { return false }
        takenOverRun = runID
        return true
    }

    /// A pass of run `runID` asks to replace it as taken over: `true` when it does (end the run,
    /// begin a new one, then ``carriedOnAsNewRun(_:takeover:)`` and ``replacingRunEnded()``);
    /// `false` when the run was not taken over or another pass replaces it now.
    package mutating func replacingRunRequested(_ runID: String) -> Bool {
        guard takenOverRun == runID, !replacingRun else { return false }
        replacingRun = true
        return true
    }

    /// The run taken over was replaced by run `runID`, which took over `takeover`.
    package mutating func carriedOnAsNewRun(_ runID: String, takeover: TakeoverReport) {
        self.runID = runID
        self.takeover = takeover
        takenOverRun = nil
    }

    /// The replacing ended (done or failed: a failure leaves the run to the next pass).
    package mutating func replacingRunEnded() {
        replacingRun = false
    }
}

extension CenterLifecycle.SuspendAction {
    /// The draining this answer begins, if any.
    package var draining: CenterLifecycle.Draining? {
        if case .drain(let draining) = self { draining } else { nil }
    }
}

extension CenterLifecycle.GracefulStopAction {
    /// The draining this answer begins, if any.
    package var draining: CenterLifecycle.Draining? {
        if case .drain(let draining) = self { draining } else { nil }
    }
}
