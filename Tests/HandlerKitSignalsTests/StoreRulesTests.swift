import Foundation
import GRDB
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalsTestSupport
import Testing

/// The rules the core decides for every store, on their own: a post's, a release's, the counts of
/// the statistics and a schema's migration. The conformance suite checks that each store writes them.
@Suite("Signals: the rules the core decides for the stores")
struct StoreRulesTests {
    @Test func aPostDeliversToEveryConsumerButAServedOnceConsumerAndServesOnceConsumers() {
        let posting = Posting(signalID: "s", payload: [1, 2], keepUntil: nil)
        let decision = posting.decide(
            previousRevision: 4,
            consumers: [
                Posting.Consumer(mode: "once", served: true), Posting.Consumer(mode: "once", served: false),
                Posting.Consumer(mode: "everyRevision", served: false),
                Posting.Consumer(mode: "everyRevision", served: true),
                // An unknown mode is delivered (and parked dead with the reason when claimed), never skipped.
                Posting.Consumer(mode: "sometimes", served: true),
            ])
        #expect(decision.revision == 5)
        #expect(decision.deliveries.map(\.consumer) == [1, 2, 3, 4])
        #expect(decision.deliveries.map(\.serves) == [true, false, false, false])
        #expect(decision.keepsRecord)
        #expect(posting.keptPayload == [])
        #expect(
            posting.result(revision: 5, deliveries: 4)
                == PostResult(signalID: "s", revision: 5, deliveries: 4, kept: false))
    }

    @Test func aPostKeepsTheRecordWithAConsumerOrAKeepAndItsPayloadOnlyWhenKept() {
        let dropped = Posting(signalID: "s", payload: [1], keepUntil: nil)
        let none = dropped.decide(previousRevision: nil, consumers: [])
        #expect(none.revision == 1 && none.deliveries.isEmpty && !none.keepsRecord)
        let kept = Posting(signalID: "s", payload: [1], keepUntil: Date(timeIntervalSince1970: 100))
        #expect(kept.decide(previousRevision: 2, consumers: []).keepsRecord)
        #expect(kept.keptPayload == [1] && kept.keepUntil == 100)
        #expect(kept.result(revision: 3, deliveries: 0).kept)
    }

    /// Each rule's SQL evaluated by SQLite for every input, against the Swift rule (the PostgreSQL
    /// store's post runs the same SQL: `HandlerKitSignalsPostgresTests` puts it to its server too).
    @Test func thePostRulesInSQLSayWhatTheSwiftOnesSay() async throws {
        let database = try DatabaseQueue()
        let (mismatches, evaluated) = try await PostingRulesInSQL.mismatches(boolean: { $0 ? "1" : "0" }) { sql in
            try database.read { db in try Int.fetchOne(db, sql: "SELECT " + sql) }
        }
        #expect(evaluated > 20)
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func aReleaseWithoutARetryTimeIsDeadAndWithOneIsPending() {
        let delivery = ClaimedDelivery(
            rowID: 7, key: DeliveryKey("c/1"), consumerID: ConsumerID("c"), signalID: "s", revision: 1, handler: [],
            payload: [], attempt: 2, runID: "run", mode: .once, previousAttemptCrashed: false)
        let dead = StorePlan.release(delivery, reason: "no", retryAt: nil)
        #expect(
            dead.steps == [
                .releaseClaim(ClaimRelease(rowID: 7, run: "run", attempt: 2, state: .dead, reason: "no", dueAt: nil))
            ])
        let retried = StorePlan.release(delivery, reason: "later", retryAt: Date(timeIntervalSince1970: 50))
        #expect(
            retried.steps == [
                .releaseClaim(
                    ClaimRelease(rowID: 7, run: "run", attempt: 2, state: .pending, reason: "later", dueAt: 50))
            ])
        #expect(retried.purpose == "releasing delivery c/1")
        #expect(!retried.wakesAnyone && retried.wakeUp(counts: [1]) == nil)
        #expect(retried.releasedClaim(counts: [1]) && !retried.releasedClaim(counts: [0]))
    }

    @Test func theStatisticsCountAStateTheCoreDoesNotKnowAsDead() {
        let statistics = SignalStoreStatistics(
            runs: 1, consumers: 2, signals: 3, completions: 4,
            deliveries: [("pending", 5), ("claimed", 6), ("dead", 7), ("lost", 8), (nil, 9)])
        var expected = SignalStoreStatistics()
        (expected.runs, expected.consumers, expected.signals, expected.completions) = (1, 2, 3, 4)
        (expected.pendingDeliveries, expected.claimedDeliveries, expected.deadDeliveries) = (5, 6, 24)
        #expect(statistics == expected)
    }

    @Test func aMigrationAppliesTheStepsFromTheVersionFoundAndRecordsTheLatest() throws {
        let migration = SchemaMigration(steps: ["a", "b", "c"])
        var applied: [String] = []
        var recorded: [Int] = []
        let found = try migration.migrate(
            at: "here", read: { 1 }, apply: { applied.append($0) }, record: { recorded.append($0) })
        #expect(found == 1 && applied == ["b", "c"] && recorded == [3])
        let current = try migration.migrate(
            at: "here", read: { 3 }, apply: { applied.append($0) }, record: { recorded.append($0) })
        #expect(current == nil && applied == ["b", "c"] && recorded == [3])
    }

    @Test func aMigrationRefusesANewerStoreUntouched() {
        let migration = SchemaMigration(steps: ["a", "b"])
        var touched = false
        #expect(throws: SignalError.newerSchema(path: "here", found: 3, supported: 2)) {
            _ = try migration.migrate(
                at: "here", read: { 3 }, apply: { _ in touched = true }, record: { _ in touched = true })
        }
        #expect(!touched)
        #expect(throws: Never.self) { try migration.refuseNewer(found: 2, at: "here") }
    }

    /// Between a settlement's read and its step, another transaction may settle the promise (on
    /// PostgreSQL, where the read locks nothing): the step then changes nothing, and the program
    /// reads the promise again and answers it as settled before, posting and waking nothing.
    @Test func aSettlementThatLostARaceAnswersThePromiseAsTheWinnerSettledIt() throws {
        var tables = SignalTables()
        func make(_ steps: [StoreStep]) -> [Int] {
            tables.perform(StoreProgram<[Int]>("steps", recordedAs: nil, .steps(steps) { .done($0, wakeUp: nil) }))
                .value
        }
        let promise = PromiseRecord(
            id: "p", valueType: "Int", component: "app", limitedToComponent: false, fallbackConsumer: nil,
            createdAt: Date(), deadline: nil, retention: 60, settlement: nil)
        #expect(make([.insertPromise(promise)]) == [1])
        let mine = PromiseSettlementRecord(key: "mine", outcome: .fulfilled, body: Array("1".utf8), settledAt: Date())
        let theirs = PromiseSettlementRecord(
            key: "theirs", outcome: .fulfilled, body: Array("2".utf8), settledAt: Date())
        let program = StoreProgram.settle("p", with: mine, ifValueTypeIn: nil, now: 0) { _ in nil }
        guard case .read(let read) = program.first, case .steps(let steps, let next) = read.afterTables(tables) else {
            Issue.record("a settlement reads the promise, then settles it")
            return
        }
        #expect(steps == [.settlePromise("p", mine)])
        #expect(make([.settlePromise("p", theirs)]) == [1])  // the other transaction commits first
        let counts = make(steps)
        #expect(counts == [0])
        let answer = tables.perform(StoreProgram("the rest", recordedAs: nil, next(counts)))
        #expect(try answer.value.get()?.settlement == theirs)
        #expect(answer.wakeUp == nil)
        #expect(tables.promises["p"]?.settlement == theirs)
    }
}
