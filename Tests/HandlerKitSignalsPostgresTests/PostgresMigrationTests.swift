// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// A PostgreSQL store written by an earlier version of HandlerKitSignals is migrated when opened,
/// keeping its records.
@Suite(
    "Signals on PostgreSQL: schema migrations",
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresMigrationTests {
    /// A store at schema version 2 (without the marks of started and crashed attempts) holding a
    /// consumer and its pending delivery: opened, it is migrated (its columns and indexes made) and the
    /// delivery is delivered.
    @Test func aStoreAtVersion2IsMigratedKeepingItsRecords() async throws {
        let folder = TemporaryFolder()
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let schema = PostgresTestServer.schema(for: folder.path)
        let old = try PostgresTestServer.store(folder: folder.path)
        let registering = try await manualCenter("app", store: old, registry: registry)
        let consumer = try await registering.register(try Handler(id: "Sink.receive", registry: registry), for: "s")
        #expect(try await registering.post("s", payload: ["item": 4]).deliveries == 1)
        try await registering.stop()
        await old.close()
        try await PostgresTestServer.psql(
            """
            ALTER TABLE \(schema).deliveries DROP COLUMN started, DROP COLUMN crashed, DROP COLUMN claimed_at;
            DROP INDEX \(schema).deliveries_in_order;
            UPDATE \(schema).schema_version SET version = 2
            """)

        let store = try PostgresTestServer.store(folder: folder.path)
        let center = try await manualCenter("app", store: store, registry: registry)
        #expect(center.takeover.adoptedConsumers == 1)
        #expect(try await center.deliverDue() == 1)
        #expect(recorder.all.map(\.deliveryKey) == ["\(consumer.rawValue)/1"])
        // The index that claims read in posting order was made again (psql fails when it is missing).
        try await PostgresTestServer.psql(
            """
            DO $$ BEGIN
              IF NOT EXISTS (SELECT 1 FROM pg_indexes WHERE schemaname = '\(schema)' AND indexname = 'deliveries_in_order')
              THEN RAISE EXCEPTION 'no index deliveries_in_order'; END IF;
            END $$
            """)
        try await center.stop()
        await store.close()
    }

    /// A store at schema version 6 kept the ids of posts only, in the table `posts`: opened, it keeps
    /// the ids of every write in `operations` instead, and `posts` is gone.
    @Test func aStoreAtVersion6RecordsTheIdsOfItsWritesInOperations() async throws {
        let folder = TemporaryFolder()
        let schema = PostgresTestServer.schema(for: folder.path)
        let old = try PostgresTestServer.store(folder: folder.path)
        _ = try await old.statistics()
        await old.close()
        try await PostgresTestServer.psql(
            """
            DROP TABLE \(schema).operations;
            CREATE TABLE \(schema).posts (post_id text PRIMARY KEY, signal_id text NOT NULL, revision integer NOT NULL,
                                          deliveries integer NOT NULL, posted_at double precision NOT NULL);
            INSERT INTO \(schema).posts VALUES ('p', 's', 1, 0, 0);
            UPDATE \(schema).schema_version SET version = 6
            """)

        let store = try PostgresTestServer.store(folder: folder.path)
        let center = try await manualCenter("app", store: store, registry: try makeRegistry(Recorder()))
        _ = try await center.post("s")
        try await PostgresTestServer.psql(
            """
            DO $$ BEGIN
              IF EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = '\(schema)' AND tablename = 'posts')
              THEN RAISE EXCEPTION 'the table posts is still there'; END IF;
              IF (SELECT count(*) FROM \(schema).operations) < 2
              THEN RAISE EXCEPTION 'the start of the run and the post recorded no operation'; END IF;
            END $$
            """)
        try await center.stop()
        await store.close()
    }
}
#endif
