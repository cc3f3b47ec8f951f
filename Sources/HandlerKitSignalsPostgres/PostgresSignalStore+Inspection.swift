// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection
import NIOCore
import PostgresNIO
import SignalSQL

extension PostgresSignalStore {
    /// Checks, writing nothing, that the store's schema holds a signal store of this version
    /// (``init(inspecting:options:)``).
    func checkSchema() async throws(SignalError) {
        let schema = schema
        let location = location
        let logger = options.logger
        let found = try await connections.run("checking the schema") { connection, _ -> Int? in
            var tables = 0
            for try await count in try await connection.query(
                "SELECT count(*)::integer FROM pg_tables WHERE schemaname = \(schema) AND tablename = 'schema_version'",
                logger: logger
            ).decode(Int.self) { tables = count }
            guard tables > 0 else { return nil }
            var version = 0
            for try await stored in try await connection.query(
                "SELECT max(version) FROM schema_version", logger: logger
            )
            .decode(Int?.self) {
                version = stored ?? 0
            }
            return version
        }
        guard let found else {
            throw .notASignalStore(
                path: location,
                found:
                    "a schema '\(schema)' without a signal store's schema_version table (missing, or holding something else)"
            )
        }
        try PostgresSchema.migration.refuseNewer(found: found, at: location)
        if found < PostgresSchema.version {
            throw .storeUnavailable(
                path: location,
                reason:
                    "it is a signal store of schema version \(found), older than this tool reads (\(PostgresSchema.version)); start a process of this version of HandlerKitSignals on it once, which migrates it"
            )
        }
    }
}

// MARK: Inspection

extension PostgresSignalStore: InspectableSignalStore {
    /// A run is alive while its lease is current and its lock connection is open.
    @_spi(SignalStoreDriver)
    public func runRecords() async throws(SignalError) -> [RunRecord] {
        try await prepare()
        let lease = options.lease.seconds
        let logger = options.logger
        return try await connections.run("listing runs") { connection, _ in
            let rows = try await connection.query(
                """
                SELECT run_id, component, host, pid, started_at, extract(epoch FROM heartbeat_at)::float8,
                       extract(epoch FROM clock_timestamp() - heartbeat_at)::float8 <= \(lease)
                       AND EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = runs.backend_pid)
                FROM runs ORDER BY started_at, run_id
                """, logger: logger)
            var runs: [RunRecord] = []
            for try await (id, component, host, pid, started, heartbeat, alive) in rows.decode(
                (String, String, String, Int, Double, Double, Bool).self)
            {
                runs.append(
                    RunRecord(
                        runID: id, component: component, host: host, processID: pid,
                        startedAt: Date(timeIntervalSince1970: started),
                        heartbeatAt: Date(timeIntervalSince1970: heartbeat), isAlive: alive))
            }
            return runs
        }
    }
}
#endif
