// Compiled with the package trait `PostgreSQL` only (`swift run -c release --traits PostgreSQL handlerkit-bench pool_pg.`).
#if PostgreSQL
// `handlerkit-bench pool_pg.`: the PostgreSQL store's own connections against postgres-nio's
// `PostgresClient`, which the store could use instead (see CONTRIBUTING.md): the cost of one
// statement on a connection taken from each pool, with one caller and with eight at once, and how
// long each takes to report a server that refuses every connection (a database that does not exist).
// Both connect to HANDLERKIT_POSTGRES_URL with the same TLS setting.
import Foundation
import HandlerKitSignalsPostgres
import Logging
import PostgresNIO

enum PostgresPoolBench {
    /// Statements per caller and round.
    static let statements = 4_000

    static func main() async throws {
        guard let url = ProcessInfo.processInfo.environment[PostgresSettings.urlVariable] else {
            print(
                "pool_pg: HANDLERKIT_POSTGRES_URL is not set; run: bash Scripts/with-postgres.sh swift run -c release handlerkit-bench pool_pg."
            )
            return
        }
        let settings = try PostgresSettings(url: url)
        // postgres-nio's pool logs each connection it fails to make, which the refusal figure provokes.
        let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
        let own = try connections(settings, logger: logger)
        let client = PostgresClient(configuration: clientConfiguration(settings), backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            for callers in [1, 8] {
                // Interleaved rounds, the best of each side.
                var best: (own: Double, client: Double) = (.infinity, .infinity)
                for _ in 0..<5 {
                    best.own = min(
                        best.own,
                        try await perStatement(callers: callers) { value in
                            try await own.run("a benchmark statement") { connection, _ in
                                try await connection.query("SELECT \(value)::int8", logger: logger).collect().count
                            }
                        })
                    best.client = min(
                        best.client,
                        try await perStatement(callers: callers) { value in
                            try await client.withConnection { connection in
                                try await connection.query("SELECT \(value)::int8", logger: logger).collect().count
                            }
                        })
                }
                let suffix = callers == 1 ? "1_caller" : "\(callers)_callers"
                print("pool_pg.store_connections_\(suffix)_us: \(String(format: "%.1f", best.own)) us")
                print("pool_pg.postgres_client_\(suffix)_us: \(String(format: "%.1f", best.client)) us")
            }
            await own.closeIdle()
            try await refusal(settings, logger: logger, group: &group)
            group.cancelAll()
        }
    }

    /// How long each pool takes to report that the server refuses every connection for good.
    private static func refusal(
        _ settings: PostgresSettings, logger: Logger, group: inout ThrowingTaskGroup<Void, any Error>
    ) async throws {
        var refused = settings
        refused.database = "handlerkit_no_such_database"
        let own = try connections(refused, logger: logger)
        let clock = ContinuousClock()
        var start = clock.now
        do {
            _ = try await own.run("a benchmark statement") { connection, _ in
                try await connection.query("SELECT 1", logger: logger).collect().count
            }
        } catch {
            print("pool_pg.store_connections_refused_s: \(String(format: "%.3f", seconds(clock.now - start))) s")
        }
        let client = PostgresClient(configuration: clientConfiguration(refused), backgroundLogger: logger)
        group.addTask { await client.run() }
        start = clock.now
        // postgres-nio's pool keeps retrying; stop waiting after two minutes.
        let lease = Task {
            try await client.withConnection { connection in
                try await connection.query("SELECT 1", logger: logger).collect().count
            }
        }
        let limit = Task {
            try await Task.sleep(for: .seconds(120))
            lease.cancel()
        }
        _ = await lease.result
        limit.cancel()
        print("pool_pg.postgres_client_refused_s: \(String(format: "%.3f", seconds(clock.now - start))) s")
    }

    private static func connections(_ settings: PostgresSettings, logger: Logger) throws -> PostgresConnections {
        PostgresConnections(
            settings: settings, tls: try PostgresTLS(settings: settings, appTLS: nil), logger: logger,
            reconnectFor: .seconds(30), connectionTimeout: .seconds(10))
    }

    /// A client with the TLS the store makes of `settings` (`prefer` and `disable`, the modes the
    /// benchmark's server is reached with).
    private static func clientConfiguration(_ settings: PostgresSettings) -> PostgresClient.Configuration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.username, password: settings.password,
            database: settings.database, tls: settings.tlsMode == .disable ? .disable : .prefer(tls))
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    /// Microseconds per statement of `callers` tasks running `statements` statements each.
    private static func perStatement(
        callers: Int, _ statement: @escaping @Sendable (Int) async throws -> Int
    ) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<callers {
                group.addTask { for value in 0..<statements { _ = try await statement(value) } }
            }
            try await group.waitForAll()
        }
        return seconds(clock.now - start) * 1e6 / Double(callers * statements)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
#endif
