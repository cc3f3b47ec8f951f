// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection
import HandlerKitSignalsPostgres
import SignalsTestSupport

/// The PostgreSQL store without its shortcuts: it runs every program of the core as the program's
/// stages, one statement per step and read, as a store outside the package would. The differential
/// test compares it with the store that takes the shortcuts (its one-statement post, claim and
/// completion, its settlement with a locked read), so each shortcut is shown to have exactly the
/// effects of the stages it replaces, on the same database.
final class StagesOnlyStore: ForwardingSignalStore, InspectableSignalStore {
    private let base: PostgresSignalStore
    var wrapped: any SignalStore { base }

    init(_ base: PostgresSignalStore) { self.base = base }

    func perform<Result: Sendable>(_ program: StoreProgram<Result>) async throws(SignalError) -> Result {
        try await base.perform(
            StoreProgram(
                program.purpose, recordedAs: program.record, marksStartsOf: program.marksStartsOf,
                unmarked: program.unmarked, precheck: program.precheck, program.first))
    }
    func runRecords() async throws(SignalError) -> [RunRecord] { try await base.runRecords() }
}
#endif
