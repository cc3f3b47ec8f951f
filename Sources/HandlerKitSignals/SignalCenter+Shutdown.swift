import Foundation
import HandlerKit
import Logging

/// What ``SignalCenter/stop(finishingWithin:)`` did.
public struct StopReport: Sendable, Hashable {
    /// The run that ended.
    public var runID: String
    /// Deliveries the run had claimed whose handlers had not started: given back (pending again,
    /// their attempt not counted) before the run ended.
    public var claimsGivenBack = 0
    /// Handlers that were running when the stop began and returned within the grace period (their
    /// deliveries were settled before the run ended).
    public var handlersFinished = 0
    /// The deliveries whose handlers were still running at the end of the grace period. The run
    /// ended without them: each attempt counts as interrupted, the delivery is pending again for the
    /// component's next run (with the same `deliveryKey`), and the completion of the handler that
    /// still runs here is refused. Their tasks are cancelled.
    public var handlersInterrupted: [DeliveryKey] = []
    /// `true` when the center was stopped already: nothing was done.
    public var wasStopped = false

    /// A report of the stop of run `runID`.
    init(runID: String) {
        self.runID = runID
    }
}

extension SignalCenter {
    /// Ends this run gracefully, for a process that is told to exit (a server's SIGTERM):
    ///
    /// 1. It stops claiming: the automatic delivery task claims and starts nothing more.
    /// 2. It waits up to `grace` for the handlers that run to return, and settles their deliveries.
    /// 3. It gives back the deliveries it claimed whose handlers did not start (pending again,
    ///    their attempt not counted).
    /// 4. It ends the run as ``stop()`` does: consumers tied to the run are removed, durable ones
    ///    stay for the component's next process, and the run's proof of life is released, so that
    ///    no process has to wait for it to lapse to take over.
    ///
    /// Unlike ``stop()``, it does not wait for a handler past `grace`: such a delivery's attempt
    /// counts as interrupted, it runs again in the component's next run (with the same
    /// `deliveryKey`), and the handler's task is cancelled; its completion is refused, so the
    /// delivery is never completed twice. `HandlerKitSignalsService` calls this on a graceful
    /// shutdown.
    ///
    /// A suspended center is stopped as by ``stop()``. Stopping a stopped center does nothing
    /// (``StopReport/wasStopped``).
    ///
    /// - Throws: the store's errors, after which the center delivers again as before (call it or
    ///   ``stop()`` again).
    @discardableResult
    public func stop(finishingWithin grace: Duration) async throws(SignalError) -> StopReport {
        try await transitions.run { () throws(SignalError) -> StopReport in
            let draining: CenterLifecycle.Draining
            switch beginDraining(
                { $0.gracefulStopRequested(graceEnds: ContinuousClock.now + grace) }, draining: \.draining)
            {
            case .stopAtOnce(let runID, let wasStopped):
                var report = StopReport(runID: runID)
                report.wasStopped = wasStopped
                try await stopNow()
                return report
            case .drain(let begun): draining = begun
            }
            let runningAtStart = draining.runningAtStart
            // From then on a handler that returns waits (its settlement is held at the gate) until the
            // run has ended, and then finds its claim gone.
            let keeping = await finishDraining(by: draining.graceEnds)
            // Read once the passes have ended: one of them may have replaced a run found taken over.
            let runID = runID
            var report = StopReport(runID: runID)
            do throws(SignalError) {
                let counts = try await store.apply(.giveBack(runID, keeping: Array(keeping.keys)))
                report.claimsGivenBack = counts.first ?? 0
                try await store.endRun(
                    runID, component: component, applying: Self.retirement(of: runID, retry: options.retry))
            } catch {
                reactivateAfterFailedDraining()
                throw error
            }
            let loops = markStopped().loops
            if keeping.isEmpty {
                for loop in loops { await loop.value }
            } else {
                for loop in loops { loop.cancel() }
            }
            report.handlersFinished = max(0, runningAtStart - keeping.count)
            report.handlersInterrupted = keeping.sorted { $0.key < $1.key }.map(\.value)
            log(
                .debug, "signal center stopped",
                [
                    "handlerkit.claims_given_back": .stringConvertible(report.claimsGivenBack),
                    "handlerkit.handlers_interrupted": .stringConvertible(keeping.count),
                ])
            return report
        }
    }
}
