import Foundation
import HandlerKit

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
            let draining: CenterLifecycle.Draining
            switch beginDraining({ $0.suspendRequested(graceEnds: ContinuousClock.now + grace) }, draining: \.draining)
            {
            case .refuse(let error): throw error
            case .alreadySuspended(let runID):
                var report = SuspensionReport(runID: runID)
                report.wasSuspended = true
                return report
            case .drain(let begun): draining = begun
            }
            let runningAtStart = draining.runningAtStart
            // Read once the passes have ended: one of them may have replaced a run found taken over.
            let keeping = await finishDraining(by: draining.graceEnds)
            let runID = runID
            var report = SuspensionReport(runID: runID)
            do throws(SignalError) {
                let runTied = try await store.consumers(of: component).filter {
                    $0.runID == runID && $0.lifetime == .run
                }.map(\.id)
                let counts = try await store.suspendRun(
                    runID, component: component, applying: .giveBack(runID, keeping: Array(keeping.keys)))
                state.withLock { $0.lifecycle.suspensionDone(runConsumers: runTied) }
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
                reactivateAfterFailedDraining()
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
            switch state.withLock({ $0.lifecycle.resumeRequested() }) {
            case .refuse(let error): throw error
            case .resume(let runID, _):
                if let report = try await resumeSuspendedRun(stopping: false) { return report }
                return Self.notSuspended(runID)
            case .notSuspended(let runID): return Self.notSuspended(runID)
            }
        }
    }

    /// The report of a resume that found the center not suspended.
    private static func notSuspended(_ runID: String) -> ResumeReport {
        var report = ResumeReport(runID: runID, suspendedRunID: runID)
        report.wasSuspended = false
        return report
    }

    /// Whether the center is suspended (from the start of ``suspend(finishingWithin:)`` until
    /// ``resume()``).
    public var isSuspended: Bool { state.withLock { $0.lifecycle.isSuspended } }

    /// Takes the suspended run back, or begins a new run when it was taken over (not when
    /// `stopping`: then `nil`), and delivers again (not when `stopping`).
    func resumeSuspendedRun(stopping: Bool) async throws(SignalError) -> ResumeReport? {
        let (runID, keeping) = state.withLock { ($0.lifecycle.runID, Array($0.lifecycle.running.keys)) }
        // Made first: when it cannot be made, nothing changed and the center stays suspended.
        let listener = !stopping && options.deliversAutomatically ? try store.makeWakeListener() : nil
        var report = ResumeReport(runID: runID, suspendedRunID: runID)
        do throws(SignalError) {
            let kept = try await store.resumeRun(
                runID, component: component, applying: .giveBack(runID, keeping: keeping))
            if !kept {
                report.wasTakenOver = true
                report.removedRunConsumers = state.withLock { $0.lifecycle.runConsumers }
                self.report(.runTakenOver(component: component, runID: runID))
                if stopping { return nil }
                let newRun = UUID().uuidString
                report.takeover = try await Self.beginRun(newRun, component: component, store: store, options: options)
                report.runID = newRun
                recordTakeover(report.takeover)
                state.withLock { $0.claims.runReplaced() }
                reactivate { $0.resumedAsNewRun(newRun, takeover: report.takeover) }
                if let listener { startDelivering(with: listener) }
                return report
            }
        } catch {
            listener?.close()
            throw error
        }
        reactivate { $0.resumedSameRun(stopping: stopping) }
        if let listener { startDelivering(with: listener) }
        return report
    }

    /// Waits at the suspension gate while `arrive` answers `.wait` (it is asked under the state's
    /// lock, and may count what goes on). ``resume()``, a failed suspension and ``stop()`` open the
    /// gate (every waiting task asks again).
    func passGate(_ arrive: (inout CenterLifecycle) -> CenterLifecycle.GateAction) async {
        while true {
            let passed = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { state -> Bool in
                    if arrive(&state.lifecycle) == .wait {
                        state.gate.append(continuation)
                        return false
                    }
                    return true
                }
                if now { continuation.resume(returning: true) }
            }
            if passed { return }
        }
    }

    /// Feeds the machine a suspension or graceful stop that was asked for; when its answer begins a
    /// draining (`draining` finds it), ends the automatic delivery task of the generation that
    /// ended: closes its wake-up listener, and keeps the task among the former ones until it has
    /// ended. Returns the answer.
    func beginDraining<Action>(
        _ event: (inout CenterLifecycle) -> Action, draining: (Action) -> CenterLifecycle.Draining?
    ) -> Action {
        let (action, listener) = state.withLock { state -> (Action, (any SignalWakeListener)?) in
            let action = event(&state.lifecycle)
            guard let ended = draining(action)?.endedGeneration else { return (action, nil) }
            defer {
                state.listener = nil
                state.loop = nil
            }
            if let loop = state.loop { state.formerLoops[ended] = loop }
            return (action, state.listener)
        }
        listener?.close()
        return action
    }

    /// Ends the draining that ``beginDraining(_:draining:)`` began: waits until the handlers that run
    /// have returned and settled, or `deadline`; then holds every later settlement at the gate,
    /// waits for the store calls under way (the store bounds each by its own timeouts), and
    /// returns the deliveries whose handlers still run.
    func finishDraining(by deadline: ContinuousClock.Instant) async -> [Int64: DeliveryKey] {
        while state.withLock({ !$0.lifecycle.isDrained }) && .now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let keeping = state.withLock { $0.lifecycle.drainingEnded() }
        while state.withLock({ $0.lifecycle.storeCalls > 0 }) { try? await Task.sleep(for: .milliseconds(2)) }
        return keeping
    }

    /// Feeds the machine an event that makes the center active again, and performs its answer:
    /// lets the settlements that waited go ahead. Returns the answer.
    @discardableResult
    func reactivate(
        _ event: (inout CenterLifecycle) -> CenterLifecycle.Reactivation
    ) -> CenterLifecycle.Reactivation {
        let (reactivation, gate) = state.withLock { state in
            let reactivation = event(&state.lifecycle)
            return (reactivation, state.takeGate(if: reactivation.openGate))
        }
        for waiting in gate { waiting.resume(returning: false) }
        return reactivation
    }

    /// A suspension or a graceful stop failed in the store: the center delivers again as before.
    func reactivateAfterFailedDraining() {
        if reactivate({ $0.drainingFailed() }).startDelivering { try? startDelivering() }
    }
}
