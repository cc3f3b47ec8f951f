// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
import HandlerKitSignals
import NIOCore
import PostgresNIO

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

    public func deliveries(matching filter: DeliveryFilter) async throws(SignalError) -> [DeliveryRecord] {
        try await prepare()
        let logger = options.logger
        let states = filter.states ?? Set(DeliveryFilter.State.allCases)
        let (pendingOnes, retrying, claimedOnes, deadOnes) = (
            states.contains(.pending), states.contains(.retrying), states.contains(.claimed), states.contains(.dead)
        )
        let bodies = filter.includesBodies
        let limit = filter.limit.map { max(0, $0) }
        return try await connections.run("listing deliveries") { connection, _ in
            let rows = try await connection.query(
                """
                SELECT d.delivery_key, d.consumer_id, d.component, d.lifetime, d.handler_id, d.signal_id, d.revision,
                       d.state, d.owner_run, d.claimed_by, d.attempt, d.started, d.crashed, d.not_before, d.last_error,
                       d.created_at, CASE WHEN \(bodies) THEN b.handler END, CASE WHEN \(bodies) THEN b.payload END, d.claimed_at
                FROM deliveries d LEFT JOIN delivery_bodies b ON b.delivery_id = d.id
                WHERE ((\(pendingOnes) AND d.state = 'pending' AND d.last_error IS NULL)
                       OR (\(retrying) AND d.state = 'pending' AND d.last_error IS NOT NULL)
                       OR (\(claimedOnes) AND d.state = 'claimed') OR (\(deadOnes) AND d.state = 'dead'))
                  AND (\(filter.component)::text IS NULL OR d.component = \(filter.component))
                  AND (\(filter.signalID)::text IS NULL OR d.signal_id = \(filter.signalID))
                  AND (\(filter.handlerID)::text IS NULL OR d.handler_id = \(filter.handlerID))
                  AND (\(filter.consumerID?.rawValue)::text IS NULL OR d.consumer_id = \(filter.consumerID?.rawValue))
                  AND (\(filter.key?.rawValue)::text IS NULL OR d.delivery_key = \(filter.key?.rawValue))
                  AND (\(filter.madeBefore?.timeIntervalSince1970)::float8 IS NULL
                       OR d.created_at < \(filter.madeBefore?.timeIntervalSince1970))
                ORDER BY d.id LIMIT \(limit)
                """, logger: logger)
            var records: [DeliveryRecord] = []
            for try await row in rows {
                let cells = row.makeRandomAccess()
                let key = try cells[0].decode(String.self)
                let consumer = try cells[1].decode(String.self)
                let stateText = try cells[7].decode(String.self)
                guard let state = DeliveryState(rawValue: stateText) else {
                    throw SignalError.malformedRecord(
                        table: "deliveries", key: key, column: "state",
                        reason: "unknown state '\(stateText.prefix(40))'")
                }
                records.append(
                    DeliveryRecord(
                        key: DeliveryKey(key), consumerID: ConsumerID(consumer),
                        component: try cells[2].decode(String.self),
                        lifetime: try ConsumerLifetime(stored: try cells[3].decode(String.self), consumer: consumer),
                        handlerID: try cells[4].decode(String.self), signalID: try cells[5].decode(String.self),
                        revision: try cells[6].decode(Int.self), state: state,
                        ownerRun: try cells[8].decode(String.self),
                        claimedBy: try cells[9].decode(String?.self),
                        claimedAt: try cells[18].decode(Double?.self).map(Date.init(timeIntervalSince1970:)),
                        attempts: try cells[10].decode(Int.self),
                        started: try cells[11].decode(Int.self) != 0,
                        previousAttemptCrashed: try cells[12].decode(Int.self) != 0,
                        dueAt: Date(timeIntervalSince1970: try cells[13].decode(Double.self)),
                        lastError: try cells[14].decode(String?.self),
                        madeAt: Date(timeIntervalSince1970: try cells[15].decode(Double.self)),
                        handler: try cells[16].decode(ByteBuffer?.self).map { Array($0.readableBytesView) },
                        payload: try cells[17].decode(ByteBuffer?.self).map { Array($0.readableBytesView) }))
            }
            return records
        }
    }

    public func deliveryCounts() async throws(SignalError) -> [DeliveryCount] {
        try await prepare()
        let logger = options.logger
        return try await connections.run("counting deliveries") { connection, _ in
            let rows = try await connection.query(
                """
                SELECT component, state, last_error IS NOT NULL, count(*)::integer, min(created_at)
                FROM deliveries GROUP BY component, state, last_error IS NOT NULL
                """, logger: logger)
            var counts: [DeliveryCount] = []
            for try await (component, stateText, failed, count, oldest) in rows.decode(
                (String, String, Bool, Int, Double).self)
            {
                let state = DeliveryFilter.state(
                    of: DeliveryState(rawValue: stateText) ?? .dead, lastError: failed ? "" : nil)
                let made = Date(timeIntervalSince1970: oldest)
                if let index = counts.firstIndex(where: { $0.component == component && $0.state == state }) {
                    counts[index].count += count
                    counts[index].oldestMadeAt = min(counts[index].oldestMadeAt, made)
                } else {
                    counts.append(DeliveryCount(component: component, state: state, count: count, oldestMadeAt: made))
                }
            }
            return counts
        }
    }

    public func signalRecords() async throws(SignalError) -> [SignalRecord] {
        try await prepare()
        let logger = options.logger
        return try await connections.run("listing signal records") { connection, _ in
            let rows = try await connection.query(
                "SELECT signal_id, revision, posted_at, keep_until FROM signals ORDER BY signal_id", logger: logger)
            var signals: [SignalRecord] = []
            for try await (id, revision, posted, kept) in rows.decode((String, Int, Double, Double?).self) {
                signals.append(
                    SignalRecord(
                        signalID: id, revision: revision, postedAt: Date(timeIntervalSince1970: posted),
                        keptUntil: kept.map(Date.init(timeIntervalSince1970:))))
            }
            return signals
        }
    }

    public func completions(matching filter: CompletionFilter) async throws(SignalError) -> [CompletionEntry] {
        try await prepare()
        let logger = options.logger
        let limit = filter.limit.map { max(0, $0) }
        return try await connections.run("listing completions") { connection, _ in
            let rows = try await connection.query(
                """
                SELECT delivery_key, consumer_id, signal_id, revision, run_id, attempt, completed_at FROM completions
                WHERE (\(filter.key?.rawValue)::text IS NULL OR delivery_key = \(filter.key?.rawValue))
                  AND (\(filter.consumerID?.rawValue)::text IS NULL OR consumer_id = \(filter.consumerID?.rawValue))
                  AND (\(filter.signalID)::text IS NULL OR signal_id = \(filter.signalID))
                  AND (\(filter.completedBefore?.timeIntervalSince1970)::float8 IS NULL
                       OR completed_at < \(filter.completedBefore?.timeIntervalSince1970))
                ORDER BY completed_at, delivery_key LIMIT \(limit)
                """, logger: logger)
            var entries: [CompletionEntry] = []
            for try await (key, consumer, signal, revision, run, attempt, completed) in rows.decode(
                (String, String, String, Int, String, Int, Double).self)
            {
                entries.append(
                    CompletionEntry(
                        key: DeliveryKey(key), consumerID: ConsumerID(consumer), signalID: signal, revision: revision,
                        runID: run, attempt: attempt, completedAt: Date(timeIntervalSince1970: completed)))
            }
            return entries
        }
    }
}
#endif
