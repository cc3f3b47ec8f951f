// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
import HandlerKit
import HandlerKitSignals
import Logging
import PostgresNIO

/// Keeps one run alive on the server: a connection of its own holding the run's session-level
/// advisory lock (released by the server when the connection closes, however the process ends), a
/// lease renewed every `heartbeatInterval`, and every `livenessCheckInterval` a look for dead runs of
/// the component to take over. When the connection is lost (the server restarted) it reconnects,
/// takes the lock again and renews the lease; when it finds its run record gone (taken over after
/// its lease expired) it records the run again, empty, and logs it.
final class RunKeeper: Sendable {
    let runID: String
    let component: String
    /// The run's retry policy, by which the runs it takes over count their started attempts.
    let retry: RetryPolicy
    private let lockKey: Int32
    private let connection: Locked<PostgresConnection?>
    private let task = Locked<Task<Void, Never>?>(nil)

    private init(
        runID: String, component: String, retry: RetryPolicy, lockKey: Int32, connection: PostgresConnection
    ) {
        self.runID = runID
        self.component = component
        self.retry = retry
        self.lockKey = lockKey
        self.connection = Locked(connection)
    }

    /// Records the run and takes its lock (lock first: the record never exists without it).
    static func start(
        store: PostgresSignalStore, runID: String, component: String, retry: RetryPolicy
    ) async throws(SignalError) -> RunKeeper {
        let connection = try await store.connections.connect()
        let logger = store.options.logger
        do {
            var key: Int32 = 0
            for try await value in try await connection.query(
                "SELECT nextval('run_lock_keys')::integer",
                logger: logger
            ).decode(Int32.self) { key = value }
            try await connection.query("SELECT pg_advisory_lock(hashtext(\(store.namespace)), \(key))", logger: logger)
            let keeper = RunKeeper(
                runID: runID, component: component, retry: retry, lockKey: key, connection: connection)
            try await keeper.record(on: connection, store: store)
            keeper.task.withLock { $0 = Task { await keeper.keepAlive(store: store) } }
            return keeper
        } catch {
            try? await connection.close()
            throw store.connections.signalError(error, operation: "starting run \(runID) of component '\(component)'")
        }
    }

    /// Stops renewing the lease; with `closing`, closes the connection, which releases the run's lock.
    func stop(closing: Bool) async {
        let running = task.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
        guard closing,
            let open = connection.withLock({ connection -> PostgresConnection? in
                defer { connection = nil }
                return connection
            })
        else { return }
        try? await open.close()
    }

    private func record(on connection: PostgresConnection, store: PostgresSignalStore) async throws {
        let now = Date().timeIntervalSince1970
        let pid = Int(ProcessInfo.processInfo.processIdentifier)
        try await connection.query(
            """
            INSERT INTO runs (run_id, component, host, pid, lock_key, backend_pid, started_at, heartbeat_at)
            VALUES (\(runID), \(component), \(store.options.hostID), \(pid), \(lockKey), pg_backend_pid(), \(now), clock_timestamp())
            ON CONFLICT (run_id) DO UPDATE SET lock_key = excluded.lock_key, backend_pid = excluded.backend_pid,
                heartbeat_at = excluded.heartbeat_at
            """, logger: store.options.logger)
    }

    private func keepAlive(store: PostgresSignalStore) async {
        let logger = store.options.logger
        var lastCheck = ContinuousClock.now
        var wait = store.options.heartbeatInterval
        while !Task.isCancelled {
            try? await Task.sleep(for: wait)
            if Task.isCancelled { break }
            do {
                let current = try await liveConnection(store: store)
                var renewed = 0
                for try await _ in try await current.query(
                    """
                    UPDATE runs SET heartbeat_at = clock_timestamp(), backend_pid = pg_backend_pid()
                    WHERE run_id = \(runID) RETURNING 1
                    """, logger: logger)
                { renewed += 1 }
                if renewed == 0 {
                    logger.warning(
                        "signal store \(store.location): run \(runID) of component '\(component)' was taken over by another process (its lease expired or its lock was lost); it carries on as an empty run"
                    )
                    try await record(on: current, store: store)
                }
                wait = store.options.heartbeatInterval
                if lastCheck.duration(to: .now) >= store.options.livenessCheckInterval {
                    lastCheck = .now
                    _ = try await store.takeOverDeadRuns(of: component, by: runID, retry: retry)
                    try await store.forgetOldPosts(current)
                }
            } catch {
                if Task.isCancelled { break }
                logger.notice(
                    "signal store \(store.location): run \(runID) lost its connection, reconnecting: \(PostgresConnections.describe(error))"
                )
                if let broken = connection.withLock({ connection -> PostgresConnection? in
                    defer { connection = nil }
                    return connection
                }) {
                    try? await broken.close()
                }
                wait = .milliseconds(100)
            }
        }
    }

    /// The lock connection, reconnected (and the lock taken again) when it was lost.
    private func liveConnection(store: PostgresSignalStore) async throws -> PostgresConnection {
        if let current = connection.withLock({ $0 }), !current.isClosed { return current }
        let fresh = try await store.connections.connect()
        do {
            try await fresh.query(
                "SELECT pg_advisory_lock(hashtext(\(store.namespace)), \(lockKey))", logger: store.options.logger)
        } catch {
            try? await fresh.close()
            throw error
        }
        connection.withLock { $0 = fresh }
        store.options.logger.notice("signal store \(store.location): run \(runID) reconnected and holds its lock again")
        return fresh
    }
}
#endif
