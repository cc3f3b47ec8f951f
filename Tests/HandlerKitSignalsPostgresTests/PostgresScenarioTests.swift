// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// Real processes killed at injected points, on PostgreSQL: the TestKit's process checks
/// (`SignalStoreProcessChecks`).
@Suite(
    "Signals: real processes, kill -9 at injected points, on PostgreSQL", .serialized,
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresKillTests {
    @Test(arguments: SignalStoreProcessChecks.checks)
    func processCheck(_ check: SignalStoreProcessChecks.Check) async throws {
        try await StoreKind.postgres.runProcessCheck(check)
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
