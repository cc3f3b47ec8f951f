import Foundation
import GRDB
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// Posting inside the application's own GRDB transaction (`SQLiteSignalStore.post(_:in:)`), its
/// tables in the store's file: the delivery exists if and only if that transaction commits.
@Suite("Signals on SQLite: posting inside the application's transaction")
struct SQLiteTransactionPostTests {
    let folder = TemporaryFolder()
    var path: String { folder.path + "/signals.sqlite" }

    /// The store, a center delivering to a consumer of `job`, and the application's own connection
    /// to the store's file, with its table `photos`.
    func setUp() async throws -> (SQLiteSignalStore, SignalCenter, Recorder, DatabaseQueue) {
        let store = try SQLiteSignalStore(path: path)
        let recorder = Recorder()
        let center = try await manualCenter("app", store: store, registry: try makeRegistry(recorder))
        try await center.register(try Handler(id: "Sink.receive", registry: center.registry), for: "job")
        let app = try DatabaseQueue(path: path)
        try await app.write { db in try db.execute(sql: "CREATE TABLE photos (id INTEGER)") }
        return (store, center, recorder, app)
    }

    func photos(_ app: DatabaseQueue) async throws -> Int {
        try await app.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM photos") ?? -1 }
    }

    @Test func aCommittedPostIsDeliveredOnceWithTheApplicationsRow() async throws {
        let (store, center, recorder, app) = try await setUp()
        let result = try await app.write { db in
            try db.execute(sql: "INSERT INTO photos (id) VALUES (1)")
            return try store.post("job", payload: ["item": 1], in: db)
        }
        #expect(result.revision == 1 && result.deliveries == 1)
        #expect(try await center.deliverDue() == 1)
        #expect(try await center.deliverDue() == 0)
        #expect(recorder.all.map(\.item) == [1])
        #expect(try await photos(app) == 1)
        try await center.stop()
    }

    @Test func aRolledBackPostLeavesNothing() async throws {
        let (store, center, recorder, app) = try await setUp()
        struct Abandoned: Error {}
        await #expect(throws: Abandoned.self) {
            try await app.write { db in
                try db.execute(sql: "INSERT INTO photos (id) VALUES (2)")
                try store.post([SignalPost("job", payload: ["item": 2]), SignalPost("other")], in: db)
                throw Abandoned()
            }
        }
        #expect(try await center.deliverDue() == 0)
        #expect(recorder.all.isEmpty)
        let left = try await store.statistics()
        #expect(left.pendingDeliveries == 0 && left.signals == 0, "\(left)")
        #expect(try await photos(app) == 0)
        try await center.stop()
    }

    @Test func aFailedPostLeavesTheApplicationsTransactionUsable() async throws {
        let (store, center, recorder, app) = try await setUp()
        try await app.write { db in
            try db.execute(sql: "INSERT INTO photos (id) VALUES (3)")
            #expect(throws: SignalError.self) { try store.post([SignalPost(SignalID(" padded "))], in: db) }
            try store.post("job", payload: ["item": 3], in: db)
        }
        #expect(try await center.deliverDue() == 1)
        #expect(recorder.all.map(\.item) == [3])
        #expect(try await photos(app) == 1)
        try await center.stop()
    }

    @Test func aConnectionOutsideATransactionOrToAnotherFileIsRefused() async throws {
        let (store, center, _, app) = try await setUp()
        let outside = #expect(throws: SignalError.self) {
            try app.inDatabase { db in try store.post("job", payload: ["item": 4], in: db) }
        }
        #expect(outside?.description.contains("not in a transaction") == true, "\(String(describing: outside))")
        let other = try DatabaseQueue(path: folder.path + "/other.sqlite")
        let elsewhere = await #expect(throws: SignalError.self) {
            try await other.write { db in try store.post("job", payload: ["item": 4], in: db) }
        }
        #expect(elsewhere?.description.contains("not to the store's file") == true, "\(String(describing: elsewhere))")
        #expect(try await store.statistics().pendingDeliveries == 0)
        try await center.stop()
    }

    /// Real processes: posters killed after their post and before their commit leave neither the
    /// delivery nor the application's row; a poster that commits is delivered once.
    @Test func aProcessKilledBetweenThePostAndTheCommitLeavesNothing() async throws {
        let (store, center, recorder, app) = try await setUp()
        for row in 1...5 {
            let outcome = try await Probe.run(
                [
                    "post-in-transaction", "--db", path, "--signal", "job", "--table", "photos", "--row", "\(row)",
                    "--kill-before-commit", "1",
                ], folder: folder.path)
            #expect(outcome.killed && outcome.output.contains("posted 1 1"), "\(outcome.output)")
        }
        #expect(try await photos(app) == 0)
        #expect(try await store.statistics().pendingDeliveries == 0)
        let committed = try await Probe.run(
            ["post-in-transaction", "--db", path, "--signal", "job", "--table", "photos", "--row", "6"],
            folder: folder.path)
        #expect(!committed.killed && committed.output.contains("posted 1 1"), "\(committed.output)")
        #expect(try await center.deliverDue() == 1)
        #expect(try await center.deliverDue() == 0)
        #expect(recorder.all.map(\.item) == [6])
        #expect(try await photos(app) == 1)
        try await center.stop()
    }
}
