// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection
import HandlerKitSignalsPostgres

/// The PostgreSQL store without its shortcuts: it runs every program of the core as the program's
/// stages, one statement per step and read, as a store outside the package would. The differential
/// test compares it with the store that takes the shortcuts (its one-statement post, claim and
/// completion, its settlement with a locked read), so each shortcut is shown to have exactly the
/// effects of the stages it replaces, on the same database.
final class StagesOnlyStore: InspectableSignalStore {
    private let base: PostgresSignalStore

    init(_ base: PostgresSignalStore) { self.base = base }

    var location: String { base.location }
    var livenessCheckInterval: Duration? { base.livenessCheckInterval }

    func perform<Result: Sendable>(_ program: StoreProgram<Result>) async throws(SignalError) -> Result {
        try await base.perform(
            StoreProgram(
                program.purpose, recordedAs: program.record, marksStartsOf: program.marksStartsOf,
                unmarked: program.unmarked, precheck: program.precheck, program.first))
    }
    func read<Value: Sendable>(_ read: StoreRead<Value>) async throws(SignalError) -> Value {
        try await base.read(read)
    }
    func makeWakeListener() throws(SignalError) -> any SignalWakeListener { try base.makeWakeListener() }

    func beginRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        try await base.beginRun(runID, component: component, applying: plan)
    }
    func endRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        try await base.endRun(runID, component: component, applying: plan)
    }
    func suspendRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) -> [Int] {
        try await base.suspendRun(runID, component: component, applying: plan)
    }
    func resumeRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) -> Bool {
        try await base.resumeRun(runID, component: component, applying: plan)
    }
    func takeOver(_ run: String, of component: String, applying plan: StorePlan) async throws(SignalError) -> [Int]? {
        try await base.takeOver(run, of: component, applying: plan)
    }
    func runRecords() async throws(SignalError) -> [RunRecord] { try await base.runRecords() }
}
#endif
