#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsPostgres
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// The promise conformance suite and the promise kill test against the PostgreSQL store.
@Suite(
    "Signals: promises, on PostgreSQL",
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresPromiseTests {
    let folder = TemporaryFolder()

    @Test(arguments: PromiseConformance.checks)
    func conformance(_ check: SignalStoreConformance.Check) async throws {
        let folder = folder.path
        // The checks take runs over when they ask to (see PostgresConformanceTests).
        let options = PostgresSignalStore.Options(livenessCheckInterval: .seconds(3_600))
        try await check.run { try PostgresTestServer.store(folder: folder, options: options) }
    }

    @Test func killedWaitersConsumeEverySettlementOnce() async throws {
        try await PromiseScenarios().killedWaitersConsumeEverySettlementOnce(
            kind: .postgres, pause: 30, killAfter: 0...800)
    }

    @Test func aPromiseBoundToAHandlerIsFulfilledThroughIt() async throws {
        try await PromiseScenarios().promiseBoundToAHandler(kind: .postgres)
    }
}
#endif
