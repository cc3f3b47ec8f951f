import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// How the runs of a ``JSONFileSignalStore`` prove they are alive (``RunLocks``): the proof is
/// taken before the transaction that records a run and released after the one that ends or
/// suspends it; a takeover holds the gone run's lock during its transaction.
extension JSONFileSignalStore {
    @_spi(SignalStoreDriver)
    public func beginRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        try runLocks.take(runID)
        do {
            _ = try change("beginning run \(runID) of component '\(component)'") {
                $0.beginRun(runID, component: component, applying: plan)
            }
        } catch {
            runLocks.release(runID, removingFile: true)
            throw error
        }
    }

    @_spi(SignalStoreDriver)
    public func endRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        _ = try change("ending run \(runID) of component '\(component)'") {
            $0.endRun(runID, component: component, applying: plan)
        }
        runLocks.release(runID, removingFile: true)
    }

    @_spi(SignalStoreDriver)
    public func suspendRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int] {
        let counts = try change("suspending run \(runID) of component '\(component)'") {
            $0.suspendRun(runID, component: component, applying: plan)
        }
        runLocks.release(runID, removingFile: false)
        return counts
    }

    /// Takes the run's lock again (waiting while a taker holds it), then resumes it unless it was
    /// taken over meanwhile.
    @_spi(SignalStoreDriver)
    public func resumeRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> Bool {
        try await runLocks.retake(runID, patience: .seconds(30))
        let resumed: Bool
        do {
            resumed = try change("resuming run \(runID) of component '\(component)'") {
                $0.resumeRun(runID, component: component, applying: plan)
            }
        } catch {
            runLocks.release(runID, removingFile: false)
            throw error
        }
        if !resumed { runLocks.release(runID, removingFile: true) }
        return resumed
    }

    /// `run` is gone when this object can take its lock; the takeover's transaction runs while it
    /// holds it, so no other taker takes the run at the same time.
    @_spi(SignalStoreDriver)
    public func takeOver(
        _ run: String, of component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int]? {
        let counts = try runLocks.whileGone(run) { () throws(SignalError) -> [Int]? in
            try change("taking over run \(run) of component '\(component)'") {
                $0.takeOver(run, of: component, applying: plan, isAlive: false)
            }
        }
        return counts ?? nil
    }
}
