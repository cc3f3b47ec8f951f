@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalsTestSupport
import Testing

/// Durable promises across real processes on SQLite (PostgreSQL: PostgresPromiseTests).
@Suite("Signals: promises across processes, on SQLite")
struct PromiseProcessTests {
    @Test func killedWaitersConsumeEverySettlementOnce() async throws {
        try await PromiseScenarios().killedWaitersConsumeEverySettlementOnce(kind: .sqlite)
    }

    @Test func aPromiseBoundToAHandlerIsFulfilledThroughIt() async throws {
        try await PromiseScenarios().promiseBoundToAHandler(kind: .sqlite)
    }
}
