import Foundation
import HandlerKitSignals
import Testing

/// The rules the core decides for every store, on their own: the counts of the statistics and a
/// schema's migration.
@Suite("Signals: the rules the core decides for the stores")
struct StoreRulesTests {
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
}
