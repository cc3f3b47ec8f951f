// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
import SignalsTestSupport
import Testing

/// Real processes killed at injected points (`ProcessScenarios`), on PostgreSQL.
@Suite(
    "Signals: real processes, kill -9 at injected points, on PostgreSQL", .serialized,
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresKillTests {
    let scenarios = ProcessScenarios()

    @Test func twoProcessesOfDifferentComponentsExchangeSignalsWhileBothRun() async throws {
        try await scenarios.twoProcessesOfDifferentComponentsExchangeSignalsWhileBothRun(kind: .postgres)
    }

    @Test func aDurableConsumerOfAProcessThatExitedIsDeliveredInTheNextProcessOfItsComponent() async throws {
        try await scenarios.aDurableConsumerOfAProcessThatExitedIsDeliveredInTheNextProcessOfItsComponent(
            kind: .postgres)
    }

    @Test func consumersTiedToAKilledRunAreRemovedByTheNextProcessAndNeverDelivered() async throws {
        try await scenarios.consumersTiedToAKilledRunAreRemovedByTheNextProcessAndNeverDelivered(kind: .postgres)
    }

    @Test(arguments: ["afterClaim", "insideHandler", "beforeCompletion"])
    func killedConsumersLoseNoDeliveryAndCompleteNoneTwice(point: String) async throws {
        try await scenarios.killedConsumersLoseNoDeliveryAndCompleteNoneTwice(kind: .postgres, point: point)
    }

    @Test func concurrentConsumersKilledAtRandomPointsCompleteEveryDeliveryOnce() async throws {
        try await scenarios.concurrentConsumersKilledAtRandomPointsCompleteEveryDeliveryOnce(kind: .postgres)
    }

    @Test func killedPostsLeaveNothingBehindAndPostingAgainDeliversOnce() async throws {
        try await scenarios.killedPostsLeaveNothingBehindAndPostingAgainDeliversOnce(kind: .postgres)
    }

    @Test func aPoisonDeliveryIsDeadAfterItsAttemptsAndStarvesNoOther() async throws {
        try await scenarios.aPoisonDeliveryIsDeadAfterItsAttemptsAndStarvesNoOther(kind: .postgres)
    }
}

/// Consumers across app versions (`ConsumerEvolutionScenarios`), on PostgreSQL.
@Suite(
    "Signals: consumers across app versions, on PostgreSQL",
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresConsumerEvolutionTests {
    @Test(arguments: [StoreKind.postgres])
    func aConsumerRegisteredByTheOldVersionIsDeliveredUnderItsNewNames(kind: StoreKind) async throws {
        try await ConsumerEvolutionScenarios().aConsumerRegisteredByTheOldVersionIsDeliveredUnderItsNewNames(kind: kind)
    }

    @Test(arguments: [StoreKind.postgres])
    func aConsumerWhoseHandlerIsGoneIsParkedAsDeadNotDropped(kind: StoreKind) async throws {
        try await ConsumerEvolutionScenarios().aConsumerWhoseHandlerIsGoneIsParkedAsDeadNotDropped(kind: kind)
    }
}

/// A store failing to settle a delivery (`SettleFailureScenarios`), on PostgreSQL.
@Suite(
    "Signals: a store failing to settle a delivery, on PostgreSQL",
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresSettleFailureTests {
    @Test(arguments: [StoreKind.postgres])
    func theClaimsNotStartedAreGivenBackAndDeliveredByTheNextPass(kind: StoreKind) async throws {
        try await SettleFailureScenarios().theClaimsNotStartedAreGivenBackAndDeliveredByTheNextPass(kind: kind)
    }

    @Test(arguments: [StoreKind.postgres])
    func aClaimWhoseAnswerWasLostIsTakenBackByTheNextClaim(kind: StoreKind) async throws {
        try await SettleFailureScenarios().aClaimWhoseAnswerWasLostIsTakenBackByTheNextClaim(kind: kind)
    }
}
#endif
