import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// The shipped promise conformance suite (`PromiseConformance`) against the stores that need no server.
@Suite("Signals: the promise conformance suite, in memory and on SQLite")
struct PromiseConformanceTests {
    let folder = TemporaryFolder()

    @Test(arguments: PromiseConformance.checks)
    func inMemory(_ check: SignalStoreConformance.Check) async throws {
        try await check.run { InMemorySignalStore() }
    }

    @Test(arguments: PromiseConformance.checks)
    func sqlite(_ check: SignalStoreConformance.Check) async throws {
        let folder = folder.path
        try await check.run { try StoreKind.sqlite.open(folder) }
    }
}
