import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

extension InMemorySignalStore: InspectableSignalStore {
    /// A run is alive from `beginRun` until `endRun`, except while it is suspended.
    @_spi(SignalStoreDriver)
    public func runRecords() async throws(SignalError) -> [RunRecord] {
        let pid = Int(ProcessInfo.processInfo.processIdentifier)
        return state.withLock { state in
            state.runs.map { run, component in
                RunRecord(
                    runID: run, component: component, host: nil, processID: pid,
                    startedAt: state.runStarts[run] ?? Date(timeIntervalSince1970: 0), heartbeatAt: nil,
                    isAlive: !state.suspended.contains(run))
            }
            .sorted { ($0.startedAt, $0.runID) < ($1.startedAt, $1.runID) }
        }
    }
}
