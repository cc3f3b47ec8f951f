import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

extension InMemorySignalStore: InspectableSignalStore {
    /// A run is alive from `beginRun` until `endRun`, except while it is suspended.
    @_spi(SignalStoreDriver)
    public func runRecords() async throws(SignalError) -> [RunRecord] {
        state.withLock { tables in tables.runRecords { !$0.isSuspended } }
    }
}

extension SignalTables {
    /// The runs recorded, oldest first, as `InspectableSignalStore.runRecords()` lists them, each alive
    /// when `isAlive` says so: the store's own proof of life (the tables only record runs).
    @_spi(SignalStoreDriver)
    public func runRecords(isAlive: (RecordedRun) -> Bool) -> [RunRecord] {
        recordedRuns.map { run in
            RunRecord(
                runID: run.runID, component: run.component, host: nil, processID: run.processID,
                startedAt: run.startedAt, heartbeatAt: nil, isAlive: isAlive(run))
        }
    }
}
