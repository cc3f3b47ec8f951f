// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
import Foundation
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsPostgres
import HandlerKitSignalsTestKit
import Logging
import PostgresNIO
import SignalsTestSupport
import Testing

/// The plans PostgreSQL keeps for the store's statements: a plan made while the tables were empty
/// must not read them whole once they have grown.
@Suite(
    "Signals on PostgreSQL: plans made on empty tables", .serialized,
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresPlanTests {
    let folder = TemporaryFolder()

    /// The store's tables a delivery reads and writes.
    static let tables = ["deliveries", "delivery_bodies", "completions", "signals", "consumers", "runs"]

    /// The worst case: the tables analyzed while empty, and a role whose sessions keep one generic
    /// plan per statement from its first execution on (`plan_cache_mode = force_generic_plan`).
    /// Posting, bulk posting, posting inside the application's transaction, delivering a run's
    /// deliveries and a work queue's then scan none of the tables whole.
    @Test func statementsPlannedOnEmptyTablesStillFindTheirRowsThroughIndexes() async throws {
        let schema = PostgresTestServer.schema(for: folder.path)
        let role = schema + "_generic"
        try await PostgresTestServer.psql(
            "CREATE ROLE \(role) LOGIN SUPERUSER; ALTER ROLE \(role) SET plan_cache_mode = force_generic_plan")
        var settings = try PostgresSettings(url: try PostgresTestServer.requireURL())
        settings.schema = schema
        settings.username = role

        // A new store, its tables analyzed while empty, and the counters of what was done so far
        // (building indexes scans tables) reset once the sessions that did it have ended.
        let migrating = try PostgresSignalStore(settings: settings)
        try await migrating.prepare()
        await migrating.close()
        try await waitUntilNoSession(of: role)
        let names = Self.tables.map { "'\($0)'" }.joined(separator: ", ")
        try await PostgresTestServer.psql(
            """
            ANALYZE \(Self.tables.map { "\(schema).\($0)" }.joined(separator: ", "));
            SELECT pg_stat_reset_single_table_counters(relid) FROM pg_stat_user_tables
            WHERE schemaname = '\(schema)' AND relname IN (\(names));
            """)

        let store = try PostgresSignalStore(settings: settings)
        let recorder = Recorder()
        let center = try await manualCenter("app", store: store, registry: try makeRegistry(recorder))
        try await center.register(
            try Handler(id: "Sink.receive", registry: center.registry), for: "job", delivery: .everyRevision)
        try await center.register(
            try Handler(id: "Sink.receive", registry: center.registry), for: "work", lifetime: .queue,
            delivery: .everyRevision)
        try await center.post((0..<100).map { SignalPost("work", payload: ["item": 1_000 + $0]) })
        for item in 0..<100 { try await center.post("job", payload: ["item": item]) }
        try await center.post((100..<200).map { SignalPost("job", payload: ["item": $0]) })
        let logger = Logger(label: "test")
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: settings.host, port: settings.port, username: role, password: nil,
                database: settings.database, tls: .disable),
            id: 1, logger: logger)
        for item in 200..<250 {
            try await connection.query("BEGIN", logger: logger)
            try await store.post("job", payload: ["item": item], in: connection)
            try await connection.query("COMMIT", logger: logger)
        }
        while try await center.deliverDue() > 0 {}
        #expect(recorder.all.count == 350)
        try await connection.close()
        try await center.stop()
        await store.close()

        // What the sessions counted reaches the statistics when they end.
        try await waitUntilNoSession(of: role)
        let indexScans = try await PostgresTestServer.selectInteger(
            "sum(idx_scan) FROM pg_stat_user_tables WHERE schemaname = '\(schema)' AND relname IN (\(names))")
        #expect((indexScans ?? 0) > 0)
        for table in Self.tables {
            let scans = try await PostgresTestServer.selectInteger(
                "seq_scan FROM pg_stat_user_tables WHERE schemaname = '\(schema)' AND relname = '\(table)'")
            #expect(scans == 0, "\(table) was read whole \(scans ?? -1) times")
        }
        try await PostgresTestServer.psql("DROP OWNED BY \(role); DROP ROLE \(role)")
    }

    /// Waits (up to a minute) until no session of `role` is open.
    func waitUntilNoSession(of role: String) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await PostgresTestServer.selectInteger("count(*) FROM pg_stat_activity WHERE usename = '\(role)'")
            != 0
        {
            try #require(ContinuousClock.now < deadline, "sessions of \(role) still open after a minute")
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
#endif
