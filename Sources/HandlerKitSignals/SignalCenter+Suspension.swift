import Foundation
import HandlerKit

/// Where a center is between ``SignalCenter/suspend(finishingWithin:)`` and ``SignalCenter/resume()``.
enum SuspensionPhase: Sendable {
    /// Delivering, and taking calls.
    case active
    /// Suspending: nothing is claimed or started; handlers that run may still settle.
    case draining
    /// Suspended: the store holds nothing open for the run; settlements wait for `resume()`.
    case suspended
}

extension SignalCenter {
    /// Suspends the center so that the process holds **no lock on any file of the store** while it is
    /// suspended: call it where an iOS app or extension is about to be suspended, since iOS
    /// terminates a suspended process that holds a file lock in an App Group container
    /// (exception `0xDEAD10CC`):
    ///
    /// - an app: in `sceneDidEnterBackground(_:)` (or on `UIApplication.didEnterBackgroundNotification`),
    ///   inside a background task (`beginBackgroundTask`) that ends when `suspend` returns;
    /// - a Notification Service Extension: before calling the content handler, and in
    ///   `serviceExtensionTimeWillExpire()`;
    /// - a File Provider or other extension: when its work for the system's request is done.
    ///
    /// What it does, in order:
    /// 1. It stops claiming: the automatic delivery task ends, and ``deliverDue()`` and every other
    ///    call that reaches the store throw `SignalError.suspended` until ``resume()``.
    /// 2. It waits up to `grace` for the handlers that run to return, and settles them.
    /// 3. It gives back the deliveries it had claimed whose handlers did not start (pending again,
    ///    their attempt not counted), leaves no transaction open, and releases the run's proof of
    ///    life: an SQLite store closes its run lock file and its database connection (SQLite keeps
    ///    a lock on the `-shm` file for as long as a connection is open); a PostgreSQL store closes
    ///    the connection that holds the run's advisory lock.
    ///
    /// A handler still running when `grace` has passed keeps running in memory, and the suspension
    /// goes ahead anyway (``SuspensionReport/handlersStillRunning``): its delivery stays claimed by
    /// the run. Its completion waits for ``resume()`` and goes through only when the run was not
    /// taken over meanwhile; a process that takes the run over runs it again, with the same
    /// `deliveryKey` (its attempt counts as interrupted). A delivery is never completed twice.
    ///
    /// A suspended run counts as gone: another process of the component that starts (or calls
    /// ``takeOverDeadRuns()``) takes it over, its consumers and deliveries, as if the process had
    /// died.
    ///
    /// Calls on a suspended center throw `SignalError.suspended` rather than resuming by
    /// themselves: no lock is ever taken behind the app's back, so code that runs after `suspend`
    /// (an extension's `serviceExtensionTimeWillExpire()`) can trust that nothing is held. Suspending
    /// a suspended center does nothing (``SuspensionReport/wasSuspended``); ``stop()`` works on a
    /// suspended center.
    ///
    /// - Throws: `SignalError.centerStopped` for a stopped center; the store's errors, after which
    ///   the center delivers again as before.
    @discardableResult
    public func suspend(finishingWithin grace: Duration) async throws(SignalError) -> SuspensionReport {
        try await transitions.run { () throws(SignalError) -> SuspensionReport in
            if isStopped { throw .centerStopped(component: component, runID: runID) }
            guard let (_, runningAtStart, deadline) = beginDraining(within: grace) else {
                var report = SuspensionReport(runID: runID)
                report.wasSuspended = true
                return report
            }
            // Read once the passes have ended: one of them may have replaced a run found taken over.
            let keeping = await finishDraining(by: deadline)
            let runID = runID
            var report = SuspensionReport(runID: runID)
            do throws(SignalError) {
                let runTied = try await store.consumers(of: component).filter {
                    $0.runID == runID && $0.lifetime == .run
                }.map(\.id)
                let counts = try await store.suspendRun(
                    runID, component: component, applying: .giveBack(runID, keeping: Array(keeping.keys)))
                state.withLock { $0.runConsumers = runTied }
                report.claimsGivenBack = counts.first ?? 0
                report.handlersFinished = max(0, runningAtStart - keeping.count)
                report.handlersStillRunning = keeping.sorted { $0.key < $1.key }.map(\.value)
                log(
                    .debug, "signal center suspended",
                    [
                        "handlerkit.claims_given_back": .stringConvertible(report.claimsGivenBack),
                        "handlerkit.handlers_still_running": .stringConvertible(keeping.count),
                    ])
                return report
            } catch {
                reactivate()
                if options.deliversAutomatically { try? startDelivering() }
                throw error
            }
        }
    }

    /// Resumes a suspended center: takes the run's proof of life again, re-opens the store, and
    /// delivers again. Call it where an iOS app or extension becomes active again: in
    /// `sceneWillEnterForeground(_:)` (or on `UIApplication.willEnterForegroundNotification`), or
    /// when an extension is handed new work.
    ///
    /// When another process took the run over while it was suspended (its record is gone; the
    /// store decides this in a transaction, after waiting for a takeover in progress), the center
    /// carries on as a **new run** (a new ``runID``, taking over the component's runs that are gone,
    /// as ``start(component:store:registry:options:)`` does), reports `SignalError.runTakenOver` to
    /// `Options.onProblem`, and says so in the report (``ResumeReport/wasTakenOver``): the
    /// run-lifetime consumers of the suspended run are gone, its durable consumers were adopted by
    /// the taker, and the completions of handlers that ran past the suspension are refused (the
    /// taker runs those deliveries again). A resumed run never starts a handler for a delivery the
    /// taker holds or completed.
    ///
    /// Resuming a center that is not suspended does nothing (``ResumeReport/wasSuspended`` is `false`).
    ///
    /// - Throws: `SignalError.centerStopped` for a stopped center; the store's errors, after which
    ///   the center stays suspended (call `resume()` again).
    @discardableResult
    public func resume() async throws(SignalError) -> ResumeReport {
        try await transitions.run { () throws(SignalError) -> ResumeReport in
            let (runID, suspended) = try state.withLock { state throws(SignalError) in
                if state.stopped { throw .centerStopped(component: component, runID: state.runID) }
                return (state.runID, state.phase == .suspended)
            }
            guard suspended, let report = try await resumeSuspendedRun(stopping: false) else {
                var report = ResumeReport(runID: runID, suspendedRunID: runID)
                report.wasSuspended = false
                return report
            }
            return report
        }
    }

    /// Whether the center is suspended (from the start of ``suspend(finishingWithin:)`` until
    /// ``resume()``).
    public var isSuspended: Bool { state.withLock { $0.phase != .active } }

    /// Takes the suspended run back, or begins a new run when it was taken over (not when
    /// `stopping`: then `nil`), and delivers again (not when `stopping`).
    func resumeSuspendedRun(stopping: Bool) async throws(SignalError) -> ResumeReport? {
        let (runID, keeping) = state.withLock { ($0.runID, Array($0.running.keys)) }
        // Made first: when it cannot be made, nothing changed and the center stays suspended.
        let listener = !stopping && options.deliversAutomatically ? try store.makeWakeListener() : nil
        var report = ResumeReport(runID: runID, suspendedRunID: runID)
        do throws(SignalError) {
            let kept = try await store.resumeRun(
                runID, component: component, retry: options.retry, applying: .giveBack(runID, keeping: keeping))
            if !kept {
                report.wasTakenOver = true
                report.removedRunConsumers = state.withLock { $0.runConsumers }
                self.report(.runTakenOver(component: component, runID: runID))
                if stopping { return nil }
                let newRun = UUID().uuidString
                report.takeover = try await Self.beginRun(newRun, component: component, store: store, options: options)
                report.runID = newRun
                recordTakeover(report.takeover)
                state.withLock { state in
                    state.runID = newRun
                    state.takeover = report.takeover
                }
            }
        } catch {
            listener?.close()
            throw error
        }
        reactivate()
        if let listener { startDelivering(with: listener) }
        return report
    }

    /// Waits at the suspension gate while `blocked` holds, checked under the state's lock; once it
    /// does not, runs `entering` under the same lock. ``resume()``, a failed suspension and ``stop()``
    /// open the gate (every waiting task looks again).
    func passGate(while blocked: (State) -> Bool, entering: (inout State) -> Void = { _ in }) async {
        while true {
            let passed = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { state -> Bool in
                    if blocked(state) {
                        state.gate.append(continuation)
                        return false
                    }
                    entering(&state)
                    return true
                }
                if now { continuation.resume(returning: true) }
            }
            if passed { return }
        }
    }

    /// Begins to drain an active center, for a suspension or a graceful stop: from now on nothing is
    /// claimed or started (the automatic delivery task ends), for a grace period of `grace` counted
    /// from now. `nil` when the center is not active. Returns the run, how many handlers run now, and
    /// the end of the grace period.
    func beginDraining(
        within grace: Duration
    ) -> (runID: String, runningAtStart: Int, deadline: ContinuousClock.Instant)? {
        let begun = state.withLock {
            state -> (String, Int, (any SignalWakeListener)?, ContinuousClock.Instant)? in
            if state.stopped || state.phase != .active { return nil }
            state.phase = .draining
            let deadline = ContinuousClock.now + grace
            state.graceEnds = deadline
            state.generation += 1
            defer {
                state.listener = nil
                state.loop = nil
            }
            if let loop = state.loop { state.formerLoops[state.generation - 1] = loop }
            return (state.runID, state.running.count, state.listener, deadline)
        }
        guard let (runID, runningAtStart, listener, deadline) = begun else { return nil }
        listener?.close()
        return (runID, runningAtStart, deadline)
    }

    /// Ends the draining that ``beginDraining(within:)`` began: waits until the handlers that run
    /// have returned and settled, or `deadline`; then holds every later settlement at the gate,
    /// waits for the store calls under way (the store bounds each by its own timeouts), and
    /// returns the deliveries whose handlers still run.
    func finishDraining(by deadline: ContinuousClock.Instant) async -> [Int64: DeliveryKey] {
        while state.withLock({ !$0.running.isEmpty || $0.storeCalls > 0 }) && .now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let keeping = state.withLock { state in
            state.phase = .suspended
            return state.running
        }
        while state.withLock({ $0.storeCalls > 0 }) { try? await Task.sleep(for: .milliseconds(2)) }
        return keeping
    }

    /// Makes the center active again and lets the settlements that waited go ahead.
    func reactivate() {
        let gate = state.withLock { state in
            state.phase = .active
            state.graceEnds = nil
            state.runConsumers = []
            defer { state.gate = [] }
            return state.gate
        }
        for waiting in gate { waiting.resume(returning: false) }
    }
}
