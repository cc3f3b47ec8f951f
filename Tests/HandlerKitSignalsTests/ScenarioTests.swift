import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// Real processes killed at injected points, on SQLite: the TestKit's process checks
/// (`SignalStoreProcessChecks`), and what only SQLite has (`ProcessScenarios`).
@Suite("Signals: real processes, kill -9 at injected points, on SQLite", .serialized)
struct SQLiteKillTests {
    let scenarios = ProcessScenarios()

    @Test(arguments: SignalStoreProcessChecks.checks)
    func processCheck(_ check: SignalStoreProcessChecks.Check) async throws {
        try await StoreKind.sqlite.runProcessCheck(check)
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
