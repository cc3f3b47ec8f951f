import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// The shipped conformance suite (`HandlerKitSignalsTestKit`) against the stores that need no server.
@Suite("Signals: the conformance suite, in memory and on SQLite")
struct ConformanceTests {
    let folder = TemporaryFolder()

    @Test(arguments: SignalStoreConformance.checks)
    func inMemory(_ check: SignalStoreConformance.Check) async throws {
        try await check.run { InMemorySignalStore() }
    }

    @Test(arguments: SignalStoreConformance.checks)
    func sqlite(_ check: SignalStoreConformance.Check) async throws {
        let folder = folder.path
        try await check.run { try StoreKind.sqlite.open(folder) }
    }

    @Test(arguments: SignalStoreConformance.inspectionChecks)
    func inspectionInMemory(_ check: SignalStoreConformance.Check) async throws {
        try await check.run { InMemorySignalStore() }
    }

    @Test(arguments: SignalStoreConformance.inspectionChecks)
    func inspectionOnSQLite(_ check: SignalStoreConformance.Check) async throws {
        let folder = folder.path
        try await check.run { try StoreKind.sqlite.open(folder) }
    }
}
