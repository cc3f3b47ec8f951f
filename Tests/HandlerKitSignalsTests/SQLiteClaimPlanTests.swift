import Foundation
import GRDB
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import SignalSQL
import SignalsTestSupport
import Testing

/// How SQLite runs a claim: through the index of an owner's deliveries in claim order, stopping at
/// the first due rows, rather than reading every due delivery of the queue and sorting them (which
/// made each claim of a queue of 20,000 cost as much as the queue was long).
@Suite("Signals on SQLite: the plan of a claim")
struct SQLiteClaimPlanTests {
    let folder = TemporaryFolder()

    @Test func aClaimReadsTheOwnersDeliveriesInOrderWithoutSortingThem() async throws {
        let path = folder.path + "/signals.sqlite"
        _ = try SQLiteSignalStore(path: path)
        for request in [
            ClaimRequest(runID: "run", owner: "queue:thumbs", limit: 4, startingFirst: true, startingAll: true),
            ClaimRequest(runID: "run", limit: 16, startingFirst: true),
        ] {
            let statement = HotPathStatements.claim(request, now: 1_000)
            // The statement's placeholders are named `$1`, `$2`, …: bound by name, with any values.
            let arguments = StatementArguments(
                Dictionary(uniqueKeysWithValues: (1...4).map { ("\($0)", "x" as (any DatabaseValueConvertible)?) }))
            let details = try await DatabaseQueue(path: path).read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: arguments)
                    .map { row -> String in row["detail"] }
            }
            #expect(details.contains { $0.contains("deliveries_in_order") }, "plan: \(details)")
            #expect(!details.contains { $0.contains("TEMP B-TREE") }, "plan: \(details)")
        }
    }
}
