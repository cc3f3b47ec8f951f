import Foundation
import GRDB
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// An SQLite store written by an earlier version of HandlerKitSignals is migrated when opened,
/// keeping its records.
@Suite("Signals: SQLite schema migrations")
struct SQLiteMigrationTests {
    let folder = TemporaryFolder()
    var path: String { folder.path + "/signals.sqlite" }

    /// A store at schema version 1 (without the marks of started and crashed attempts) holding a
    /// consumer and its pending delivery: opened, it is at the current version and the delivery is delivered.
    @Test func aStoreAtVersion1IsMigratedKeepingItsRecords() async throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let old = try SQLiteSignalStore(path: path)
        let registering = try await manualCenter("app", store: old, registry: registry)
        let consumer = try await registering.register(try Handler(id: "Sink.receive", registry: registry), for: "s")
        #expect(try await registering.post("s", payload: ["item": 4]).deliveries == 1)
        try await registering.stop()
        try await DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    ALTER TABLE deliveries DROP COLUMN started;
                    ALTER TABLE deliveries DROP COLUMN crashed;
                    ALTER TABLE deliveries DROP COLUMN claimed_at;
                    ALTER TABLE signals DROP COLUMN not_before;
                    DROP INDEX deliveries_by_order_key;
                    ALTER TABLE deliveries DROP COLUMN order_key;
                    DROP INDEX deliveries_by_debounce_key;
                    ALTER TABLE deliveries DROP COLUMN debounce_key;
                    PRAGMA user_version = 1;
                    """)
        }

        let store = try SQLiteSignalStore(path: path)
        let version = try await DatabaseQueue(path: path).read { db in
            try Int.fetchOne(db, sql: "PRAGMA user_version")
        }
        #expect(version == 9)
        let center = try await manualCenter("app", store: store, registry: registry)
        #expect(center.takeover.adoptedConsumers == 1)
        #expect(try await center.deliverDue() == 1)
        #expect(recorder.all.map(\.deliveryKey) == ["\(consumer.rawValue)/1"])
        try await center.stop()
    }
}
