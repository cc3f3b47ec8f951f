import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The reads of ``InspectableSignalStore``, each written once: its SQL, and the same question
/// asked of `InMemorySignalStore`'s tables. (What says whether a run is alive is each store's own:
/// a lock file, or a lease and a session: ``InspectableSignalStore/runRecords()``.)
package enum InspectionReads {
    /// The deliveries `filter` selects, in the order they were made. The columns a later schema added
    /// are read when the store has them (an operator's tool reads an older store as it is).
    package static func deliveries(matching filter: DeliveryFilter) -> StoreRead<[DeliveryRecord]> {
        var conditions: [String] = []
        var arguments: [SQLValue] = []
        func add(_ column: String, _ value: SQLValue) {
            arguments.append(value)
            conditions.append("\(column) = $\(arguments.count)")
        }
        if let states = filter.states {
            let chosen = DeliveryFilter.State.allCases.filter(states.contains).map(condition(of:))
            conditions.append(chosen.isEmpty ? "1 = 0" : "(" + chosen.joined(separator: " OR ") + ")")
        }
        if let component = filter.component { add("d.component", .init(component)) }
        if let signal = filter.signalID { add("d.signal_id", .init(signal)) }
        if let handler = filter.handlerID { add("d.handler_id", .init(handler)) }
        if let consumer = filter.consumerID { add("d.consumer_id", .init(consumer.rawValue)) }
        if let key = filter.key { add("d.delivery_key", .init(key.rawValue)) }
        if let orderingKey = filter.orderingKey { add("d.order_key", .init(orderingKey)) }
        if let before = filter.madeBefore {
            arguments.append(.init(before.timeIntervalSince1970))
            conditions.append("d.created_at < $\(arguments.count)")
        }
        var limit = ""
        if let count = filter.limit {
            arguments.append(.init(max(0, count)))
            limit = "LIMIT $\(arguments.count)"
        }
        let bodies = filter.includesBodies
        let sql = """
            SELECT d.*\(bodies ? ", b.handler AS body_handler, b.payload AS body_payload" : "") FROM deliveries d
            \(bodies ? "LEFT JOIN delivery_bodies b ON b.delivery_id = d.id" : "")
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")) ORDER BY d.id
            \(limit)
            """
        let read = SQLRead("listing deliveries", SQLStatement(sql, arguments)) {
            (rows: [SQLRow]) throws(SignalError) -> [DeliveryRecord] in
            var records: [DeliveryRecord] = []
            for row in rows { records.append(try deliveryRecord(row, bodies: bodies)) }
            return records
        }
        return StoreRead(read) { tables in
            let all = tables.deliveries.sorted { $0.key < $1.key }.lazy.map { _, row in
                DeliveryRecord(
                    key: row.key, consumerID: row.consumerID, component: row.component, lifetime: row.lifetime,
                    handlerID: row.handlerID, signalID: row.signalID, revision: row.revision, state: row.state,
                    ownerRun: row.ownerRun, claimedBy: row.claimedBy,
                    claimedAt: row.state == .claimed ? row.claimedAt : nil,
                    attempts: row.attempt, started: row.started,
                    previousAttemptCrashed: row.crashed, dueAt: row.notBefore, lastError: row.lastError,
                    madeAt: row.madeAt, orderingKey: row.orderKey, debounceKey: row.debounceKey,
                    handler: bodies ? row.handler : nil,
                    payload: bodies ? row.payload : nil)
            }
            .filter { filter.matches($0) }
            return Array(all.prefix(max(0, filter.limit ?? Int.max)))
        }
    }

    /// The SQL condition of a state of `DeliveryFilter`.
    private static func condition(of state: DeliveryFilter.State) -> String {
        switch state {
        case .pending: "(d.state = \(DeliveryState.pending.sqlLiteral) AND d.last_error IS NULL)"
        case .retrying: "(d.state = \(DeliveryState.pending.sqlLiteral) AND d.last_error IS NOT NULL)"
        case .claimed: "d.state = \(DeliveryState.claimed.sqlLiteral)"
        case .dead: "d.state = \(DeliveryState.dead.sqlLiteral)"
        }
    }

    private static func deliveryRecord(_ row: SQLRow, bodies: Bool) throws(SignalError) -> DeliveryRecord {
        let key: String = try row.value("delivery_key", table: "deliveries", key: "?")
        func value<T: SQLDecodable>(_ name: String) throws(SignalError) -> T {
            try row.value(name, table: "deliveries", key: key)
        }
        let consumer: String = try value("consumer_id")
        let stateText: String = try value("state")
        guard let state = DeliveryState(rawValue: stateText) else {
            throw .malformedRecord(
                table: "deliveries", key: key, column: "state", reason: "unknown state '\(stateText.prefix(40))'")
        }
        return DeliveryRecord(
            key: DeliveryKey(key), consumerID: ConsumerID(consumer), component: try value("component"),
            lifetime: try ConsumerLifetime(stored: try value("lifetime"), consumer: consumer),
            handlerID: try value("handler_id"), signalID: try value("signal_id"), revision: try value("revision"),
            state: state, ownerRun: try value("owner_run"), claimedBy: row.optional("claimed_by"),
            claimedAt: (row.optional("claimed_at") as Double?).map(Date.init(timeIntervalSince1970:)),
            attempts: try value("attempt"), started: row.optional("started") ?? false,
            previousAttemptCrashed: row.optional("crashed") ?? false,
            dueAt: Date(timeIntervalSince1970: try value("not_before")), lastError: row.optional("last_error"),
            madeAt: Date(timeIntervalSince1970: try value("created_at")), orderingKey: row.optional("order_key"),
            debounceKey: row.optional("debounce_key"), handler: bodies ? row.optional("body_handler") : nil,
            payload: bodies ? row.optional("body_payload") : nil)
    }

    /// How many deliveries consumer `consumer` has with ordering key `key`, in any state.
    package static func deliveries(of consumer: ConsumerID, orderingKey key: String) -> StoreRead<Int> {
        let sql = SQLRead(
            "counting the deliveries of an ordering key",
            SQLStatement(
                "SELECT count(*) AS count FROM deliveries WHERE consumer_id = $1 AND order_key = $2",
                [.init(consumer.rawValue), .init(key)])
        ) { (rows: [SQLRow]) throws(SignalError) -> Int in
            try rows.first?.value("count", table: "deliveries", key: consumer.rawValue) ?? 0
        }
        return StoreRead(sql) { tables in
            tables.deliveries.values.filter { $0.consumerID == consumer && $0.orderKey == key }.count
        }
    }

    /// The deliveries counted by component and by the state `DeliveryFilter` shows (retrying apart
    /// from pending), with when the oldest of each was made.
    package static let deliveryCounts = StoreRead(deliveryCountsSQL) { tables in
        var counts: [String: [DeliveryFilter.State: DeliveryCount]] = [:]
        for row in tables.deliveries.values {
            let kind = DeliveryFilter.state(of: row.state, lastError: row.lastError)
            var count =
                counts[row.component]?[kind]
                ?? DeliveryCount(component: row.component, state: kind, count: 0, oldestMadeAt: row.madeAt)
            count.count += 1
            count.oldestMadeAt = min(count.oldestMadeAt, row.madeAt)
            counts[row.component, default: [:]][kind] = count
        }
        return counts.values.flatMap(\.values)
    }

    private static let deliveryCountsSQL = SQLRead<[DeliveryCount]>(
        "counting deliveries",
        SQLStatement(
            """
            SELECT component, state, last_error IS NOT NULL AS failed, count(*) AS count, min(created_at) AS oldest
            FROM deliveries GROUP BY component, state, last_error IS NOT NULL
            """)
    ) { (rows: [SQLRow]) throws(SignalError) -> [DeliveryCount] in
        var counts: [DeliveryCount] = []
        for row in rows {
            func value<T: SQLDecodable>(_ name: String) throws(SignalError) -> T {
                try row.value(name, table: "deliveries", key: "count(*)")
            }
            let component: String = try value("component")
            let failed: Bool = try value("failed")
            let state = DeliveryFilter.state(
                of: DeliveryState(rawValue: try value("state")) ?? .dead, lastError: failed ? "" : nil)
            let count: Int = try value("count")
            let oldest = Date(timeIntervalSince1970: try value("oldest"))
            if let index = counts.firstIndex(where: { $0.component == component && $0.state == state }) {
                counts[index].count += count
                counts[index].oldestMadeAt = min(counts[index].oldestMadeAt, oldest)
            } else {
                counts.append(DeliveryCount(component: component, state: state, count: count, oldestMadeAt: oldest))
            }
        }
        return counts
    }

    /// The signal records, by id.
    package static let signalRecords = StoreRead(signalRecordsSQL) { tables in
        tables.signals.map { id, signal in
            SignalRecord(
                signalID: id, revision: signal.revision, postedAt: signal.postedAt, keptUntil: signal.keepUntil)
        }
        .sorted { $0.signalID < $1.signalID }
    }

    private static let signalRecordsSQL = SQLRead<[SignalRecord]>(
        "listing signal records",
        SQLStatement("SELECT signal_id, revision, posted_at, keep_until FROM signals ORDER BY signal_id")
    ) { (rows: [SQLRow]) throws(SignalError) -> [SignalRecord] in
        var records: [SignalRecord] = []
        for row in rows {
            let id: String = try row.value("signal_id", table: "signals", key: "?")
            records.append(
                SignalRecord(
                    signalID: id, revision: try row.value("revision", table: "signals", key: id),
                    postedAt: Date(timeIntervalSince1970: try row.value("posted_at", table: "signals", key: id)),
                    keptUntil: (row.optional("keep_until") as Double?).map(Date.init(timeIntervalSince1970:))))
        }
        return records
    }

    /// The completions `filter` selects, oldest first.
    package static func completions(matching filter: CompletionFilter) -> StoreRead<[CompletionEntry]> {
        var arguments: [SQLValue] = [
            .init(filter.key?.rawValue), .init(filter.consumerID?.rawValue), .init(filter.signalID),
            .init(filter.completedBefore?.timeIntervalSince1970),
        ]
        if let limit = filter.limit { arguments.append(.init(max(0, limit))) }
        let sql = SQLRead(
            "listing completions",
            SQLStatement(
                """
                SELECT delivery_key, consumer_id, signal_id, revision, run_id, attempt, completed_at FROM completions
                WHERE (CAST($1 AS TEXT) IS NULL OR delivery_key = $1) AND (CAST($2 AS TEXT) IS NULL OR consumer_id = $2)
                  AND (CAST($3 AS TEXT) IS NULL OR signal_id = $3) AND (CAST($4 AS DOUBLE PRECISION) IS NULL OR completed_at < $4)
                ORDER BY completed_at, delivery_key\(filter.limit == nil ? "" : " LIMIT $5")
                """, arguments)
        ) { (rows: [SQLRow]) throws(SignalError) -> [CompletionEntry] in
            var entries: [CompletionEntry] = []
            for row in rows {
                let key: String = try row.value("delivery_key", table: "completions", key: "?")
                func value<T: SQLDecodable>(_ name: String) throws(SignalError) -> T {
                    try row.value(name, table: "completions", key: key)
                }
                entries.append(
                    CompletionEntry(
                        key: DeliveryKey(key), consumerID: ConsumerID(try value("consumer_id")),
                        signalID: try value("signal_id"), revision: try value("revision"), runID: try value("run_id"),
                        attempt: try value("attempt"),
                        completedAt: Date(timeIntervalSince1970: try value("completed_at"))))
            }
            return entries
        }
        return StoreRead(sql) { tables in
            let all = tables.completions.lazy.map { completion in
                CompletionEntry(
                    key: completion.record.key, consumerID: completion.consumerID, signalID: completion.signalID,
                    revision: completion.revision, runID: completion.record.runID, attempt: completion.record.attempt,
                    completedAt: completion.completedAt)
            }
            .filter { filter.matches($0) }
            return Array(all.prefix(max(0, filter.limit ?? Int.max)))
        }
    }
}
