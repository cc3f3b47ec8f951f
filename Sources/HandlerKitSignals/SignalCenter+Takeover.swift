import Foundation
import Logging

extension SignalCenter {
    /// Notes that a delivery pass found run `runID` taken over while the center was active (its
    /// record is gone: another process found its proof of life missing — its SQLite lock file
    /// removed, its PostgreSQL lease run out — and took its consumers and deliveries), and reports
    /// it once. The next pass carries on as a new run (``carryOnIfTakenOver(_:)``).
    func noteTakenOver(_ runID: String) {
        let first = state.withLock { $0.lifecycle.passFoundTakenOver(runID) }
        if first { report(.runTakenOver(component: component, runID: runID)) }
    }

    /// Whether the current run was found taken over and is not replaced yet.
    var isTakenOver: Bool { state.withLock { $0.lifecycle.isTakenOver } }

    /// When the run was found taken over, carries on as a new run, as ``resume()`` does for a run
    /// taken over while suspended: ends the old run (giving back what it still claims and removing
    /// its run-lifetime consumers, as ``stop()`` does, which releases its proof of life), then
    /// begins a new run that takes over the component's runs that are gone — the old one among
    /// them, with the durable consumers registered to it since. So no delivery waits for a taker
    /// that does not come: the center is that taker.
    ///
    /// Returns whether the delivery pass may go on: `false` when it may not
    /// (``passCall(_:_:)``), or another pass is replacing the run now. A store error leaves the
    /// run to be replaced by the next pass.
    func carryOnIfTakenOver(_ generation: Int) async throws(SignalError) -> Bool {
        guard isTakenOver else { return true }
        let replaced = try await passCall(generation) { runID throws(SignalError) -> Bool in
            guard state.withLock({ $0.lifecycle.replacingRunRequested(runID) }) else { return false }
            defer { state.withLock { $0.lifecycle.replacingRunEnded() } }
            try await store.endRun(
                runID, component: component, applying: Self.retirement(of: runID, retry: options.retry))
            let newRun = UUID().uuidString
            let takeover = try await Self.beginRun(newRun, component: component, store: store, options: options)
            state.withLock { state in
                state.lifecycle.carriedOnAsNewRun(newRun, takeover: takeover)
                state.claims.runReplaced()
            }
            log(
                .info, "carrying on as a new run: the run was taken over", ["handlerkit.taken_over_run": .string(runID)]
            )
            recordTakeover(takeover)
            return true
        }
        return replaced ?? false
    }
}
