import SignalsTestSupport
import Testing

/// Real processes that suspend their center (`SuspensionScenarios`), on SQLite.
@Suite("Signals: real processes that suspend their center, on SQLite", .serialized)
struct SuspensionProcessTests {
    let scenarios = SuspensionScenarios()

    @Test func aSuspendedProcessHoldsNoLockOnTheStoresFiles() async throws {
        try await scenarios.aSuspendedProcessHoldsNoLockOnTheStoresFiles(kind: .sqlite)
    }

    @Test func aKilledSuspendedProcessIsTakenOverAndItsDeliveriesDelivered() async throws {
        try await scenarios.aKilledSuspendedProcessIsTakenOverAndItsDeliveriesDelivered(kind: .sqlite)
    }

    @Test func aStoppedSuspendedProcessTakenOverResumesAsANewRun() async throws {
        try await scenarios.aStoppedSuspendedProcessTakenOverResumesAsANewRun(kind: .sqlite)
    }

    @Test func aHandlerRunningPastTheGracePeriodRunsAgainAtTheTaker() async throws {
        try await scenarios.aHandlerRunningPastTheGracePeriodRunsAgainAtTheTaker(kind: .sqlite)
    }

    @Test func aProcessKilledWhileItsHandlerRunsPastTheGracePeriodLosesNothing() async throws {
        try await scenarios.aProcessKilledWhileItsHandlerRunsPastTheGracePeriodLosesNothing(kind: .sqlite)
    }
}
