// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging
import PostgresNIO

/// Keeps one run alive on the server: a connection of its own holding the run's session-level
/// advisory lock (released by the server when the connection closes, however the process ends), a
/// lease renewed every `heartbeatInterval`, and every `livenessCheckInterval` the ids of old writes
/// forgotten (the center looks for dead runs to take over: `livenessCheckInterval`). When the connection is lost (the server restarted) it reconnects,
/// takes the lock again and renews the lease; when it finds its run record gone (taken over after
/// its lease expired) it records the run again, empty, and logs it.
///
/// Every statement of the keeper gets half the lease to answer, else its connection is closed and
/// made again: a keeper cut off from the server notices within half the lease, and logs once it
/// has renewed nothing for the whole lease (other processes may then take its run over).
final class RunKeeper: Sendable {
    let runID: String
    let component: String
    private let lockKey: Int32
    /// How long a statement of the keeper may go unanswered: half the lease.
    private let bound: Duration
    private let connection: Locked<PostgresConnection?>
    private let task = Locked<Task<Void, Never>?>(nil)

    private init(
        runID: String, component: String, lockKey: Int32, bound: Duration,
        connection: PostgresConnection
    ) {
        self.runID = runID
        self.component = component
        self.lockKey = lockKey
        self.bound = bound
        self.connection = Locked(connection)
    }

    /// Records the run and takes its lock (lock first: the record never exists without it), trying
    /// again for `reconnectFor` while the server cannot be reached.
    static func start(
        store: PostgresSignalStore, runID: String, component: String
    ) async throws(SignalError) -> RunKeeper {
        let logger = store.options.logger
        let (key, connection) = try await store.connections.runOnOwnConnection(
            "starting run \(runID) of component '\(component)'"
        ) { connection in
            var key: Int32 = 0
            for try await value in try await connection.query(
                "SELECT nextval('run_lock_keys')::integer",
                logger: logger
            ).decode(Int32.self) { key = value }
            try await connection.query("SELECT pg_advisory_lock(hashtext(\(store.namespace)), \(key))", logger: logger)
            try await record(runID: runID, component: component, lockKey: key, on: connection, store: store)
            return key
        }
        let keeper = RunKeeper(
            runID: runID, component: component, lockKey: key, bound: store.options.lease / 2,
            connection: connection)
        keeper.task.withLock { $0 = Task { await keeper.keepAlive(store: store) } }
        return keeper
    }

    /// Takes the lock of a suspended run again, on a connection of its own, and renews its lease,
    /// in one transaction that holds the run's takeover lock (so no taker is half-way through
    /// taking it over); `nil` when the run's record is gone (it was taken over): nothing is held then.
    static func resume(
        store: PostgresSignalStore, runID: String, component: String
    ) async throws(SignalError) -> RunKeeper? {
        let logger = store.options.logger
        let (key, connection) = try await store.connections.runOnOwnConnection(
            "resuming run \(runID) of component '\(component)'"
        ) { connection -> Int32? in
            // A failure closes this connection (it is the keeper's own), which ends the transaction.
            try await connection.query("BEGIN", logger: logger)
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtext(\(store.namespace + ":takeover")), hashtext(\(runID)))",
                logger: logger)
            var key: Int32?
            for try await value in try await connection.query(
                "SELECT lock_key FROM runs WHERE run_id = \(runID)", logger: logger
            ).decode(Int32.self) { key = value }
            if let key {
                try await connection.query(
                    "SELECT pg_advisory_lock(hashtext(\(store.namespace)), \(key))", logger: logger)
                try await connection.query(
                    """
                    UPDATE runs SET heartbeat_at = clock_timestamp(), backend_pid = pg_backend_pid()
                    WHERE run_id = \(runID)
                    """, logger: logger)
            }
            try await connection.query("COMMIT", logger: logger)
            return key
        }
        guard let key else {
            try? await connection.close()
            return nil
        }
        let keeper = RunKeeper(
            runID: runID, component: component, lockKey: key, bound: store.options.lease / 2,
            connection: connection)
        keeper.task.withLock { $0 = Task { await keeper.keepAlive(store: store) } }
        return keeper
    }

    /// Stops renewing the lease; with `closing`, closes the connection, which releases the run's lock.
    /// Waits for a renewal in progress at most half the lease (it is cancelled, and changes nothing after).
    func stop(closing: Bool) async {
        let running = task.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        if let running {
            running.cancel()
            await ConnectionWatchdog.wait(for: running, atMost: bound + .seconds(1))
        }
        guard closing,
            let open = connection.withLock({ connection -> PostgresConnection? in
                defer { connection = nil }
                return connection
            })
        else { return }
        try? await open.close()
    }

    private static func record(
        runID: String, component: String, lockKey: Int32, on connection: PostgresConnection,
        store: PostgresSignalStore
    ) async throws {
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
        let heartbeat = store.options.heartbeatInterval
        var lastCheck = ContinuousClock.now
        var lastRenewal = ContinuousClock.now
        var failing = false
        var lapseReported = false
        var wait = heartbeat
        while !Task.isCancelled {
            try? await Task.sleep(for: wait)
            if Task.isCancelled { break }
            do {
                let current = try await liveConnection(store: store)
                let renewed = try await ConnectionWatchdog.bounded(current, within: bound) {
                    var renewed = 0
                    for try await _ in try await current.query(
                        """
                        UPDATE runs SET heartbeat_at = clock_timestamp(), backend_pid = pg_backend_pid()
                        WHERE run_id = \(self.runID) RETURNING 1
                        """, logger: logger)
                    { renewed += 1 }
                    return renewed
                }
                // Stopped meanwhile: the run is being ended, its record must not come back.
                if Task.isCancelled { break }
                if renewed == 0 {
                    logger.info(
                        "this run was taken over by another process (its lease expired or its lock was lost); it carries on as an empty run",
                        metadata: [SignalLogKey.run: .string(runID), SignalLogKey.component: .string(component)])
                    try await ConnectionWatchdog.bounded(current, within: bound) {
                        try await Self.record(
                            runID: self.runID, component: self.component, lockKey: self.lockKey, on: current,
                            store: store)
                    }
                }
                if failing {
                    logger.info(
                        "the run renews its lease again",
                        metadata: [
                            SignalLogKey.run: .string(runID),
                            "handlerkit.outage": .string(PostgresConnections.format(lastRenewal.duration(to: .now))),
                        ])
                }
                lastRenewal = .now
                failing = false
                lapseReported = false
                wait = heartbeat
                if lastCheck.duration(to: .now) >= store.options.livenessCheckInterval {
                    lastCheck = .now
                    try await ConnectionWatchdog.bounded(current, within: bound) {
                        try await store.forgetOldOperations(current)
                    }
                }
            } catch {
                if Task.isCancelled { break }
                logger.log(
                    level: failing ? .debug : .info, "the run cannot renew its lease, reconnecting",
                    metadata: [
                        SignalLogKey.run: .string(runID),
                        SignalLogKey.error: .string(PostgresConnections.describe(error)),
                    ])
                // Soon after the first failure, then less often, up to the heartbeat interval.
                wait = failing ? min(wait * 2, heartbeat) : .milliseconds(100)
                failing = true
                if !lapseReported, lastRenewal.duration(to: .now) >= store.options.lease {
                    lapseReported = true
                    logger.info(
                        "the run renewed no lease for the lease duration: other processes of the component may take its deliveries over",
                        metadata: [
                            SignalLogKey.run: .string(runID), SignalLogKey.component: .string(component),
                            "handlerkit.outage": .string(PostgresConnections.format(lastRenewal.duration(to: .now))),
                            "handlerkit.lease": .string(PostgresConnections.format(store.options.lease)),
                        ])
                }
                if let broken = connection.withLock({ connection -> PostgresConnection? in
                    defer { connection = nil }
                    return connection
                }) {
                    try? await broken.close()
                }
            }
        }
    }

    /// The lock connection, reconnected (and the lock taken again) when it was lost.
    private func liveConnection(store: PostgresSignalStore) async throws -> PostgresConnection {
        if let current = connection.withLock({ $0 }), !current.isClosed { return current }
        let fresh = try await store.connections.connect()
        do {
            try await ConnectionWatchdog.bounded(fresh, within: bound) {
                try await fresh.query(
                    "SELECT pg_advisory_lock(hashtext(\(store.namespace)), \(self.lockKey))",
                    logger: store.options.logger)
            }
        } catch {
            try? await fresh.close()
            throw error
        }
        connection.withLock { $0 = fresh }
        store.options.logger.info(
            "the run reconnected and holds its lock again", metadata: [SignalLogKey.run: .string(runID)])
        return fresh
    }
}
#endif
