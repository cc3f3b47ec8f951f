import SignalsTestSupport
import Testing

/// Real processes killed at injected points (`ProcessScenarios`), on SQLite.
@Suite("Signals: real processes, kill -9 at injected points, on SQLite", .serialized)
struct SQLiteKillTests {
    let scenarios = ProcessScenarios()

    @Test func twoProcessesOfDifferentComponentsExchangeSignalsWhileBothRun() async throws {
        try await scenarios.twoProcessesOfDifferentComponentsExchangeSignalsWhileBothRun(kind: .sqlite)
    }

    @Test func aDurableConsumerOfAProcessThatExitedIsDeliveredInTheNextProcessOfItsComponent() async throws {
        try await scenarios.aDurableConsumerOfAProcessThatExitedIsDeliveredInTheNextProcessOfItsComponent(kind: .sqlite)
    }

    @Test func consumersTiedToAKilledRunAreRemovedByTheNextProcessAndNeverDelivered() async throws {
        try await scenarios.consumersTiedToAKilledRunAreRemovedByTheNextProcessAndNeverDelivered(kind: .sqlite)
    }

    @Test(arguments: ["afterClaim", "insideHandler", "beforeCompletion"])
    func killedConsumersLoseNoDeliveryAndCompleteNoneTwice(point: String) async throws {
        try await scenarios.killedConsumersLoseNoDeliveryAndCompleteNoneTwice(kind: .sqlite, point: point)
    }

    @Test func concurrentConsumersKilledAtRandomPointsCompleteEveryDeliveryOnce() async throws {
        try await scenarios.concurrentConsumersKilledAtRandomPointsCompleteEveryDeliveryOnce(kind: .sqlite)
    }

    @Test func killedPostsLeaveNothingBehindAndPostingAgainDeliversOnce() async throws {
        try await scenarios.killedPostsLeaveNothingBehindAndPostingAgainDeliversOnce(kind: .sqlite)
    }

    @Test func aPoisonDeliveryIsDeadAfterItsAttemptsAndStarvesNoOther() async throws {
        try await scenarios.aPoisonDeliveryIsDeadAfterItsAttemptsAndStarvesNoOther(kind: .sqlite)
    }

    @Test func aRunWhoseLockFileWasRemovedStartsNoHandlerItsTakerCompleted() async throws {
        try await scenarios.aRunWhoseLockFileWasRemovedStartsNoHandlerItsTakerCompleted(kind: .sqlite)
    }
}

/// Consumers across app versions (`ConsumerEvolutionScenarios`), in memory and on SQLite.
@Suite("Signals: consumers across app versions, in memory and on SQLite")
struct ConsumerEvolutionTests {
    @Test(arguments: [StoreKind.memory, .sqlite])
    func aConsumerRegisteredByTheOldVersionIsDeliveredUnderItsNewNames(kind: StoreKind) async throws {
        try await ConsumerEvolutionScenarios().aConsumerRegisteredByTheOldVersionIsDeliveredUnderItsNewNames(kind: kind)
    }

    @Test(arguments: [StoreKind.memory, .sqlite])
    func aConsumerWhoseHandlerIsGoneIsParkedAsDeadNotDropped(kind: StoreKind) async throws {
        try await ConsumerEvolutionScenarios().aConsumerWhoseHandlerIsGoneIsParkedAsDeadNotDropped(kind: kind)
    }
}

/// A store failing to settle a delivery (`SettleFailureScenarios`), in memory and on SQLite.
@Suite("Signals: a store failing to settle a delivery, in memory and on SQLite")
struct SettleFailureTests {
    @Test(arguments: [StoreKind.memory, .sqlite])
    func theClaimsNotStartedAreGivenBackAndDeliveredByTheNextPass(kind: StoreKind) async throws {
        try await SettleFailureScenarios().theClaimsNotStartedAreGivenBackAndDeliveredByTheNextPass(kind: kind)
    }

    @Test(arguments: [StoreKind.memory, .sqlite])
    func aClaimWhoseAnswerWasLostIsTakenBackByTheNextClaim(kind: StoreKind) async throws {
        try await SettleFailureScenarios().aClaimWhoseAnswerWasLostIsTakenBackByTheNextClaim(kind: kind)
    }
}
