import SignalsTestSupport
import Testing

/// Real processes that run their center as a `SignalCenterService` and get a real SIGTERM
/// (`ServiceScenarios`), and spans linked across two processes, on SQLite.
@Suite("Signals: a center as a service, stopped by SIGTERM, and traced across processes, on SQLite", .serialized)
struct ServiceProcessTests {
    let scenarios = ServiceScenarios()

    // The service needs the package trait `ServiceLifecycle` (Scripts/test.sh enables every trait).
    #if ServiceLifecycle
    @Test func aServiceStoppedBySIGTERMFinishesItsHandlerAndLeavesNothingToTakeOver() async throws {
        try await scenarios.aServiceStoppedBySIGTERMFinishesItsHandlerAndLeavesNothingToTakeOver(kind: .sqlite)
    }

    @Test func aHandlerRunningPastTheServicesGracePeriodRunsAgainInTheNextProcessOnce() async throws {
        try await scenarios.aHandlerRunningPastTheServicesGracePeriodRunsAgainInTheNextProcessOnce(kind: .sqlite)
    }

    @Test func theNextProcessAfterASIGTERMAdoptsTheConsumersWithoutTakingOverADeadRun() async throws {
        try await scenarios.theNextProcessAfterASIGTERMAdoptsTheConsumersWithoutTakingOverADeadRun(kind: .sqlite)
    }

    #endif

    @Test func aDeliverySpanInAnotherProcessIsLinkedToThePostsSpan() async throws {
        try await scenarios.aDeliverySpanInAnotherProcessIsLinkedToThePostsSpan(kind: .sqlite)
    }
}
