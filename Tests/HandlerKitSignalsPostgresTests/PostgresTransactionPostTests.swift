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

/// Posting inside the application's own transaction (`PostgresSignalStore.post(_:in:)`): the
/// delivery exists if and only if that transaction commits.
/// One test at a time: each holds a store's connections, an application connection and probe
/// processes' connections, and the server's are shared with every other test.
@Suite(
    "Signals on PostgreSQL: posting inside the application's transaction", .serialized,
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresTransactionPostTests {
    let folder = TemporaryFolder()
    let logger = Logger(label: "test")

    /// The application's table, in the store's test schema's namespace but a schema of its own.
    var table: String { PostgresTestServer.schema(for: folder.path) + "_app.rows" }

    /// The store, a center delivering to a consumer of `job`, and the application's connection and table.
    func setUp() async throws -> (PostgresSignalStore, SignalCenter, Recorder, PostgresConnection) {
        let store = try PostgresTestServer.store(folder: folder.path)
        let recorder = Recorder()
        let center = try await manualCenter("app", store: store, registry: try makeRegistry(recorder))
        try await center.register(try Handler(id: "Sink.receive", registry: center.registry), for: "job")
        let schema = PostgresTestServer.schema(for: folder.path) + "_app"
        try await PostgresTestServer.psql("CREATE SCHEMA IF NOT EXISTS \(schema); CREATE TABLE \(table) (id bigint)")
        let settings = store.settings
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: settings.host, port: settings.port, username: settings.username, password: settings.password,
                database: settings.database, tls: .disable),
            id: 1, logger: logger)
        return (store, center, recorder, connection)
    }

    func rows() async throws -> Int { try await PostgresTestServer.selectInteger("count(*) FROM \(table)") ?? -1 }

    @Test func aCommittedPostIsDeliveredOnceWithTheApplicationsRow() async throws {
        let (store, center, recorder, connection) = try await setUp()
        try await connection.query("BEGIN", logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(table) VALUES (1)"), logger: logger)
        let result = try await store.post("job", payload: ["item": 1], in: connection)
        #expect(result.revision == 1 && result.deliveries == 1)
        // Not visible before the commit: a center finds nothing to deliver.
        #expect(try await center.deliverDue() == 0)
        try await connection.query("COMMIT", logger: logger)
        #expect(try await center.deliverDue() == 1)
        #expect(recorder.all.map(\.item) == [1])
        #expect(try await rows() == 1)
        try await connection.close()
        try await center.stop()
        await store.close()
    }

    @Test func aRolledBackPostLeavesNothing() async throws {
        let (store, center, recorder, connection) = try await setUp()
        try await connection.query("BEGIN", logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(table) VALUES (2)"), logger: logger)
        try await store.post([SignalPost("job", payload: ["item": 2]), SignalPost("other")], in: connection)
        try await connection.query("ROLLBACK", logger: logger)
        #expect(try await center.deliverDue() == 0)
        #expect(recorder.all.isEmpty)
        let left = try await store.statistics()
        #expect(left.pendingDeliveries == 0 && left.signals == 0, "\(left)")
        #expect(try await rows() == 0)
        try await connection.close()
        try await center.stop()
        await store.close()
    }

    @Test func theApplicationsSettingsStayAndAFailedPostLeavesItsTransactionUsable() async throws {
        let (store, center, recorder, connection) = try await setUp()
        try await connection.query("BEGIN", logger: logger)
        try await connection.query("SET LOCAL search_path TO pg_catalog", logger: logger)
        let invalid = SignalPost(SignalID(" padded "))
        await #expect(throws: SignalError.self) { try await store.post([invalid], in: connection) }
        try await store.post("job", payload: ["item": 3], in: connection)
        // The store's statements ran with its own search_path and enable_seqscan; the application's are back.
        var settings: [String] = []
        for try await value in try await connection.query(
            "SELECT current_setting('search_path') || ' ' || current_setting('enable_seqscan')", logger: logger
        ).decode(String.self) { settings.append(value) }
        #expect(settings == ["pg_catalog on"])
        try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(table) VALUES (3)"), logger: logger)
        try await connection.query("COMMIT", logger: logger)
        #expect(try await center.deliverDue() == 1)
        #expect(recorder.all.map(\.item) == [3])
        #expect(try await rows() == 1)
        try await connection.close()
        try await center.stop()
        await store.close()
    }

    @Test func aConnectionNotInATransactionPostsNothing() async throws {
        let (store, center, _, connection) = try await setUp()
        let error = await #expect(throws: SignalError.self) {
            try await store.post("job", payload: ["item": 4], in: connection)
        }
        #expect(error?.description.contains("not in a transaction") == true, "\(String(describing: error))")
        #expect(try await store.statistics().pendingDeliveries == 0)
        try await connection.close()
        try await center.stop()
        await store.close()
    }

    /// Real processes: posters killed after their post and before their commit leave neither the
    /// delivery nor the application's row; a poster that commits is delivered once.
    @Test func aProcessKilledBetweenThePostAndTheCommitLeavesNothing() async throws {
        let (store, center, recorder, connection) = try await setUp()
        let url = try PostgresTestServer.url(folder: folder.path)
        var killed = 0
        for row in 1...5 {
            let outcome = try await Probe.run(
                [
                    "post-in-transaction", "--signal", "job", "--table", table, "--row", "\(row)",
                    "--kill-before-commit", "1", "--postgres", url,
                ], folder: folder.path)
            #expect(outcome.killed && outcome.output.contains("posted 1 1"), "\(outcome.output)")
            if outcome.killed { killed += 1 }
        }
        #expect(killed == 5)
        #expect(try await rows() == 0)
        #expect(try await store.statistics().pendingDeliveries == 0)
        let committed = try await Probe.run(
            ["post-in-transaction", "--signal", "job", "--table", table, "--row", "6", "--postgres", url],
            folder: folder.path)
        #expect(!committed.killed && committed.output.contains("posted 1 1"), "\(committed.output)")
        #expect(try await center.deliverDue() == 1)
        #expect(try await center.deliverDue() == 0)
        #expect(recorder.all.map(\.item) == [6])
        #expect(try await rows() == 1)
        try await connection.close()
        try await center.stop()
        await store.close()
    }
}
#endif
