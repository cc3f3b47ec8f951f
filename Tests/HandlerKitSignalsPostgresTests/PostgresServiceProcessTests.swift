// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
import SignalsTestSupport
import Testing

/// Real processes that run their center as a `SignalCenterService` and get a real SIGTERM, and
/// spans linked across two processes (`ServiceScenarios`), on PostgreSQL: a run that ends cleanly
/// releases its advisory lock and leaves nothing for a lease to lapse on.
@Suite(
    "Signals: a center as a service, stopped by SIGTERM, and traced across processes, on PostgreSQL",
    .serialized, .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresServiceProcessTests {
    let scenarios = ServiceScenarios()

    // The service needs the package trait `ServiceLifecycle` (Scripts/test.sh enables every trait).
    #if ServiceLifecycle
    @Test func aServiceStoppedBySIGTERMFinishesItsHandlerAndLeavesNothingToTakeOver() async throws {
        try await scenarios.aServiceStoppedBySIGTERMFinishesItsHandlerAndLeavesNothingToTakeOver(kind: .postgres)
    }

    @Test func aHandlerRunningPastTheServicesGracePeriodRunsAgainInTheNextProcessOnce() async throws {
        try await scenarios.aHandlerRunningPastTheServicesGracePeriodRunsAgainInTheNextProcessOnce(kind: .postgres)
    }

    @Test func theNextProcessAfterASIGTERMAdoptsTheConsumersWithoutTakingOverADeadRun() async throws {
        try await scenarios.theNextProcessAfterASIGTERMAdoptsTheConsumersWithoutTakingOverADeadRun(kind: .postgres)
    }

    #endif

    @Test func aDeliverySpanInAnotherProcessIsLinkedToThePostsSpan() async throws {
        try await scenarios.aDeliverySpanInAnotherProcessIsLinkedToThePostsSpan(kind: .postgres)
    }
}
#endif
