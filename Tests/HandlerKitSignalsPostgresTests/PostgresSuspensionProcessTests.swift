// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
import SignalsTestSupport
import Testing

/// Real processes that suspend their center (`SuspensionScenarios`), on PostgreSQL: a suspension
/// closes the connection that holds the run's advisory lock, so other processes take the run over.
@Suite(
    "Signals: real processes that suspend their center, on PostgreSQL", .serialized,
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresSuspensionProcessTests {
    let scenarios = SuspensionScenarios()

    @Test func aKilledSuspendedProcessIsTakenOverAndItsDeliveriesDelivered() async throws {
        try await scenarios.aKilledSuspendedProcessIsTakenOverAndItsDeliveriesDelivered(kind: .postgres)
    }

    @Test func aStoppedSuspendedProcessTakenOverResumesAsANewRun() async throws {
        try await scenarios.aStoppedSuspendedProcessTakenOverResumesAsANewRun(kind: .postgres)
    }

    @Test func aHandlerRunningPastTheGracePeriodRunsAgainAtTheTaker() async throws {
        try await scenarios.aHandlerRunningPastTheGracePeriodRunsAgainAtTheTaker(kind: .postgres)
    }

    @Test func aProcessKilledWhileItsHandlerRunsPastTheGracePeriodLosesNothing() async throws {
        try await scenarios.aProcessKilledWhileItsHandlerRunsPastTheGracePeriodLosesNothing(kind: .postgres)
    }
}
#endif
