import Foundation
import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import Testing

/// The shipped conformance suite (`HandlerKitSignalsTestKit`) against each of the package's stores.
@Suite("Signals: the conformance suite, against every store")
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

    #if PostgreSQL
    @Test(.disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)),
          arguments: SignalStoreConformance.checks)
    func postgres(_ check: SignalStoreConformance.Check) async throws {
        let folder = folder.path
        try await check.run { try StoreKind.postgres.open(folder) }
    }
    #endif
}
