// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsPostgres
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// The PostgreSQL server the tests use: `HANDLERKIT_POSTGRES_URL`, which `Scripts/with-postgres.sh`
/// (and so `Scripts/test.sh`) sets to a throwaway server. Each test gets a schema of its own.
///
/// Without a server, a developer's `swift test` skips the PostgreSQL tests and says how to run them
/// (`postgresServerIsAvailable`); under CI (`CI=true`), or when with-postgres.sh could not start the
/// server, every PostgreSQL test fails with the reason.
enum PostgresTestServer {
    static let environment = ProcessInfo.processInfo.environment
    static let url = environment["HANDLERKIT_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let unavailableReason = environment["HANDLERKIT_POSTGRES_UNAVAILABLE"]
    static let isCI = environment["CI"] == "true"
    /// Whether the PostgreSQL tests run (and fail if there is no server).
    static let isExpected = url != nil || unavailableReason != nil || isCI
    static let howToRun =
        "PostgreSQL store tests not run: HANDLERKIT_POSTGRES_URL is not set. Run them beside a throwaway server with `bash Scripts/with-postgres.sh swift test` (or `bash Scripts/test.sh`), or point HANDLERKIT_POSTGRES_URL at a server (postgres://user@127.0.0.1:5432/database)."

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// The server's URL, or an error saying why there is none.
    static func requireURL() throws -> String {
        if let url { return url }
        if let unavailableReason {
            throw Unavailable(description: "PostgreSQL server could not be started: \(unavailableReason)")
        }
        throw Unavailable(description: howToRun)
    }

    /// A schema name of its own for a test folder (the same folder gives the same schema).
    static func schema(for folder: String) -> String {
        let hash = folder.utf8.reduce(UInt64(1_469_598_103_934_665_603)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        return "t" + String(hash, radix: 16)
    }

    /// A store on the test server in the schema of `folder`.
    static func store(folder: String, options: PostgresSignalStore.Options = .init()) throws -> PostgresSignalStore {
        var settings = try PostgresSettings(url: try requireURL())
        settings.schema = schema(for: folder)
        return try PostgresSignalStore(settings: settings, options: options)
    }

    /// Runs `sql` on the test server with psql, to change a store behind its back.
    static func psql(_ sql: String) async throws {
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = ["psql", try requireURL(), "-q", "-c", sql]
        try psql.run()
        await Probe.finish(psql)
        try #require(psql.terminationStatus == 0, "psql is needed to change the store behind its back: \(sql)")
    }

    /// The integer `SELECT <sql>` gives on the test server (psql), `nil` for NULL.
    static func selectInteger(_ sql: String) async throws -> Int? {
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = ["psql", try requireURL(), "-X", "-q", "-t", "-A", "-c", "SELECT " + sql]
        let output = Pipe()
        psql.standardOutput = output
        try psql.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        await Probe.finish(psql)
        try #require(psql.terminationStatus == 0, "psql failed on SELECT \(sql)")
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return nil }
        let value: Int = try #require(Int(text), "SELECT \(sql) gave \(text)")
        return value
    }

    /// The URL of the test server with the schema of `folder`, for probe processes.
    static func url(folder: String) throws -> String {
        try requireURL() + "?schema=" + schema(for: folder)
    }
}

extension StoreKind {
    static let postgres = StoreKind(
        name: "PostgreSQL",
        open: { folder in try PostgresTestServer.store(folder: folder) },
        probeArguments: { folder in ["--postgres", try PostgresTestServer.url(folder: folder), "--host", "host-a"] })
}

@Suite("Signals on PostgreSQL: the test server")
struct PostgresTestServerTests {
    @Test(.disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
    func postgresServerIsAvailable() async throws {
        let folder = TemporaryFolder()
        let store = try PostgresTestServer.store(folder: folder.path)
        try await store.prepare()
        #expect(try await store.statistics() == SignalStoreStatistics())
        await store.close()
    }
}

/// The shipped conformance suite (`HandlerKitSignalsTestKit`) against the PostgreSQL store.
@Suite(
    "Signals: the conformance suite, on PostgreSQL",
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresConformanceTests {
    let folder = TemporaryFolder()

    @Test(arguments: SignalStoreConformance.checks)
    func postgres(_ check: SignalStoreConformance.Check) async throws {
        let folder = folder.path
        // The checks take runs over when they ask to; the store's own periodic look for dead runs
        // (every `livenessCheckInterval`) would race them to it.
        let options = PostgresSignalStore.Options(livenessCheckInterval: .seconds(3_600))
        try await check.run { try PostgresTestServer.store(folder: folder, options: options) }
    }

    @Test(arguments: SignalStoreConformance.inspectionChecks)
    func inspection(_ check: SignalStoreConformance.Check) async throws {
        let folder = folder.path
        let options = PostgresSignalStore.Options(livenessCheckInterval: .seconds(3_600))
        try await check.run { try PostgresTestServer.store(folder: folder, options: options) }
    }
}

/// The same checks on the store without its shortcuts (`StagesOnlyStore`): every program runs as the
/// core's stages, each step and read one statement written once for both SQL stores. One check at a
/// time: each holds connections of its own, and the server's are shared with every other test.
/// Posts made at once from several centers are left out: the stages take no row locks (on SQLite the
/// write lock orders them), the store's own post statements do.
@Suite(
    "Signals: the conformance suite, on PostgreSQL without its shortcuts", .serialized,
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresStagesConformanceTests {
    let folder = TemporaryFolder()

    @Test(
        arguments: SignalStoreConformance.checks.filter { !$0.name.hasPrefix("posts and bulk posts of one signal") }
            + SignalStoreConformance.inspectionChecks)
    func stagesOnly(_ check: SignalStoreConformance.Check) async throws {
        let folder = folder.path
        let options = PostgresSignalStore.Options(livenessCheckInterval: .seconds(3_600))
        try await check.run { StagesOnlyStore(try PostgresTestServer.store(folder: folder, options: options)) }
    }
}
#endif
