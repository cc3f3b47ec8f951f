import Foundation

/// The reads of ``SignalStore``, each written once: its SQL, and the same question asked of
/// ``InMemorySignalStore``'s tables.
package enum StoreReads {
    /// The runs of `component`: recorded, and named by its consumers and by its deliveries.
    package static func runs(of component: String) -> StoreRead<RunsOfComponent> {
        let sql = SQLRead(
            "finding the runs of component '\(component)'",
            SQLStatement(
                """
                SELECT 0 AS source, run_id FROM runs WHERE component = $1
                UNION SELECT 1, run_id FROM consumers WHERE component = $1
                UNION SELECT 2, owner_run FROM deliveries WHERE component = $1
                """, [.init(component)])
        ) { (rows: [SQLRow]) throws(SignalError) -> RunsOfComponent in
            var runs = RunsOfComponent(recorded: [], namedByConsumers: [], owningDeliveries: [])
            for row in rows {
                let run: String = try row.value("run_id", table: "runs", key: component)
                switch try row.value("source", table: "runs", key: component) as Int {
                case 0: runs.recorded.insert(run)
                case 1: runs.namedByConsumers.insert(run)
                default: runs.owningDeliveries.insert(run)
                }
            }
            return runs
        }
        return StoreRead(sql) { tables in
            RunsOfComponent(
                recorded: Set(tables.runs.filter { $0.value == component }.keys),
                namedByConsumers: Set(
                    tables.consumers.filter { $0.record.component == component }.map(\.record.runID)),
                owningDeliveries: Set(tables.deliveries.values.filter { $0.component == component }.map(\.ownerRun)))
        }
    }

    /// The consumers of `component`, or of all components, in the order they were registered.
    package static func consumers(of component: String?) -> StoreRead<[ConsumerRecord]> {
        let sql = SQLRead(
            "listing consumers",
            SQLStatement(
                """
                SELECT consumer_id, signal_id, component, run_id, lifetime, mode, handler, handler_id FROM consumers
                WHERE CAST($1 AS TEXT) IS NULL OR component = $1 ORDER BY created_at, consumer_id
                """, [.init(component)]),
            decode: consumerRecords)
        return StoreRead(sql) { tables in
            tables.consumers.map(\.record).filter { component == nil || $0.component == component }
        }
    }

    /// The answer recorded with the idempotency key `key` of a post (its result as text), if a post
    /// took the key.
    package static func postKeyAnswer(_ key: String) -> StoreRead<String?> {
        let sql = SQLRead(
            "reading the post of idempotency key '\(key)'",
            SQLStatement("SELECT answer FROM post_keys WHERE post_key = $1", [.init(key)])
        ) { (rows: [SQLRow]) throws(SignalError) -> String? in rows.first?.optional("answer") }
        return StoreRead(sql) { tables in tables.postKeys[key]?.answer }
    }

    /// The consumer with id `id`, if there is one.
    package static func consumer(_ id: ConsumerID) -> StoreRead<ConsumerRecord?> {
        let sql = SQLRead(
            "finding consumer \(id)",
            SQLStatement(
                """
                SELECT consumer_id, signal_id, component, run_id, lifetime, mode, handler, handler_id FROM consumers
                WHERE consumer_id = $1
                """, [.init(id.rawValue)])
        ) { (rows: [SQLRow]) throws(SignalError) -> ConsumerRecord? in try consumerRecords(rows).first }
        return StoreRead(sql) { tables in tables.consumers.first { $0.record.id == id }?.record }
    }

    /// The consumers in `rows` of the `consumers` table.
    private static func consumerRecords(_ rows: [SQLRow]) throws(SignalError) -> [ConsumerRecord] {
        var consumers: [ConsumerRecord] = []
        for row in rows {
            let key: String = try row.value("consumer_id", table: "consumers", key: "?")
            func value<T: SQLDecodable>(_ name: String) throws(SignalError) -> T {
                try row.value(name, table: "consumers", key: key)
            }
            let handler: [UInt8] = try value("handler")
            consumers.append(
                try ConsumerRecord(
                    stored: key, signalID: try value("signal_id"), component: try value("component"),
                    runID: try value("run_id"), lifetime: try value("lifetime"), mode: try value("mode"),
                    handler: Data(handler), handlerID: try value("handler_id")))
        }
        return consumers
    }

    /// Which deliveries of owner `owner` (a placeholder: a run, or a component's work queue) are due
    /// at $2 (the SQL stores' claims select them too): pending, their time come, and not held back
    /// by an earlier delivery of the same ordering key (``orderCondition``).
    ///
    /// With `timeUnindexed`, the due time is compared as `+not_before` (the same value): SQLite then
    /// reads an owner's deliveries through its index in claim order (`deliveries_in_order`), where
    /// its planner would otherwise take the index by due time and sort every due row by id.
    package static func dueCondition(owner: String, timeUnindexed: Bool = false) -> String {
        let time = timeUnindexed ? "+not_before" : "not_before"
        return
            "owner_run = \(owner) AND state = \(DeliveryState.pending.sqlLiteral) AND \(time) <= $2 AND \(orderCondition)"
    }

    /// The rule of ordering keys, as a condition on a row of `deliveries`: a delivery with a key waits
    /// while its consumer has an earlier delivery (a smaller row id, so posted before it) with the
    /// same key, in whatever state — pending, waiting for a retry, claimed, or dead until an operator
    /// requeues or discards it. Posts of one signal are serialised by its record, so row ids follow
    /// the order of the posts that reach a consumer. `SignalTables.heldBackRows()` in Swift.
    package static let orderCondition = """
        (order_key IS NULL OR NOT EXISTS (SELECT 1 FROM deliveries AS earlier
            WHERE earlier.consumer_id = deliveries.consumer_id AND earlier.order_key = deliveries.order_key
            AND earlier.id < deliveries.id))
        """

    /// Whether owner `owner` (a run, or a component's work queue) has a delivery due at `now`: read
    /// before a claim (`StoreProgram.precheck`), which then takes no write lock when there is none.
    package static func anyDue(owner: String, now: Double) -> StoreRead<Bool> {
        let sql = SQLRead(
            "looking for deliveries due for \(owner)",
            SQLStatement(
                "SELECT EXISTS (SELECT 1 FROM deliveries WHERE \(dueCondition(owner: "$1"))) AS due",
                [.init(owner), .init(now)])
        ) { (rows: [SQLRow]) throws(SignalError) -> Bool in
            (rows.first.flatMap { $0.optional("due") as Int? } ?? 0) != 0
        }
        return StoreRead(sql) { tables in
            let held = tables.heldBackRows()
            return tables.deliveries.contains { id, row in
                row.ownerRun == owner && row.state == .pending && row.notBefore.timeIntervalSince1970 <= now
                    && !held.contains(id)
            }
        }
    }

    /// Whether run `run` is recorded (not ended, not taken over): read inside the transactions of a
    /// mark of a started attempt and of a takeover, where a taker that was itself taken over takes
    /// nothing over.
    package static func isRecorded(_ run: String) -> StoreRead<Bool> {
        let sql = SQLRead(
            "finding run \(run)", SQLStatement("SELECT count(*) AS recorded FROM runs WHERE run_id = $1", [.init(run)])
        ) { (rows: [SQLRow]) throws(SignalError) -> Bool in
            let count: Int =
                try rows.first.map { row throws(SignalError) in
                    try row.value("recorded", table: "runs", key: run)
                } ?? 0
            return count > 0
        }
        return StoreRead(sql) { tables in tables.runs[run] != nil }
    }

    /// How many of run `run`'s deliveries are pending or claimed, and when its earliest pending one is
    /// due; with `queue` (its component's work queue), whether the queue has such deliveries and when
    /// its earliest pending one is due. A delivery held back by its ordering key has no time of its
    /// own (it is claimed after the delivery before it settles). Each part reads through the index on owner, state and due
    /// time; the queue's part stops at its first delivery, so a long queue costs no more than a
    /// short one (the run's own deliveries are counted, for `SignalMetricNames.openDeliveries`).
    package static func runStatus(of run: String, queue: String? = nil) -> StoreRead<RunStatus> {
        let pending = DeliveryState.pending.sqlLiteral
        let open = "\(pending), \(DeliveryState.claimed.sqlLiteral)"
        let sql = SQLRead(
            "reading the status of run \(run)",
            SQLStatement(
                """
                SELECT (SELECT COUNT(*) FROM deliveries WHERE owner_run = $1 AND state IN (\(open))) AS open,
                    (SELECT COUNT(*) FROM (SELECT 1 FROM deliveries WHERE owner_run = $2 AND state IN (\(open)) LIMIT 1) q)
                        AS queued,
                    (SELECT not_before FROM deliveries WHERE owner_run = $1 AND state = \(pending)
                        AND \(orderCondition) ORDER BY not_before LIMIT 1) AS due,
                    (SELECT not_before FROM deliveries WHERE owner_run = $2 AND state = \(pending)
                        AND \(orderCondition) ORDER BY not_before LIMIT 1) AS queue_due
                """, [.init(run), .init(queue ?? "")])
        ) { (rows: [SQLRow]) throws(SignalError) -> RunStatus in
            RunStatus(
                stored: rows.first?.optional("open") ?? 0, nextDue: rows.first?.optional("due"),
                queued: (rows.first?.optional("queued") ?? 0) > 0, queueNextDue: rows.first?.optional("queue_due"))
        }
        return StoreRead(sql) { tables in
            let open = tables.deliveries.filter { $0.value.ownerRun == run && $0.value.state != .dead }
            let queued = tables.deliveries.filter { $0.value.ownerRun == queue && $0.value.state != .dead }
            let held = tables.heldBackRows()
            func nextDue(_ rows: [Int64: SignalTables.Delivery]) -> Date? {
                rows.filter { $0.value.state == .pending && !held.contains($0.key) }.map(\.value.notBefore).min()
            }
            return RunStatus(
                openDeliveries: open.count, nextDue: nextDue(open), queueHasDeliveries: !queued.isEmpty,
                queueNextDue: nextDue(queued))
        }
    }

    /// The dead deliveries of `component`, or of all components, oldest first. A record with a column
    /// that cannot be read is still listed (an operator can requeue or discard it by its key), with
    /// what is wrong with it added to its reason.
    package static func deadDeliveries(of component: String?) -> StoreRead<[DeadDelivery]> {
        let sql = SQLRead(
            "listing dead deliveries",
            SQLStatement(
                """
                SELECT delivery_key, signal_id, revision, consumer_id, component, handler_id, attempt, last_error
                FROM deliveries WHERE state = \(DeliveryState.dead.sqlLiteral) AND (CAST($1 AS TEXT) IS NULL OR component = $1)
                ORDER BY id
                """, [.init(component)])
        ) { (rows: [SQLRow]) throws(SignalError) -> [DeadDelivery] in
            rows.map { row in
                let key: String = row.optional("delivery_key") ?? ""
                var reason: String = row.optional("last_error") ?? DeadDelivery.unknownReason
                func value<T: SQLDecodable>(_ name: String, _ fallback: T) -> T {
                    do {
                        return try row.value(name, table: "deliveries", key: key)
                    } catch {
                        reason += "; \(error)"
                        return fallback
                    }
                }
                return DeadDelivery(
                    key: DeliveryKey(key), signalID: value("signal_id", ""), revision: value("revision", 0),
                    consumerID: ConsumerID(value("consumer_id", "")), component: value("component", ""),
                    handlerID: value("handler_id", ""), attempts: value("attempt", 0), reason: reason)
            }
        }
        return StoreRead(sql) { tables in
            tables.deliveries.sorted { $0.key < $1.key }.map(\.value)
                .filter { $0.state == .dead && (component == nil || $0.component == component) }
                .map {
                    DeadDelivery(
                        key: $0.key, signalID: $0.signalID, revision: $0.revision, consumerID: $0.consumerID,
                        component: $0.component, handlerID: $0.handlerID, attempts: $0.attempt,
                        reason: $0.lastError ?? DeadDelivery.unknownReason)
                }
        }
    }

    /// The completions recorded for `key`, oldest first.
    package static func completions(of key: DeliveryKey) -> StoreRead<[CompletionRecord]> {
        let sql = SQLRead(
            "reading the completions of \(key)",
            SQLStatement(
                "SELECT run_id, attempt FROM completions WHERE delivery_key = $1 ORDER BY completed_at",
                [.init(key.rawValue)])
        ) { (rows: [SQLRow]) throws(SignalError) -> [CompletionRecord] in
            var records: [CompletionRecord] = []
            for row in rows {
                records.append(
                    CompletionRecord(
                        key: key, runID: try row.value("run_id", table: "completions", key: key.rawValue),
                        attempt: try row.value("attempt", table: "completions", key: key.rawValue)))
            }
            return records
        }
        return StoreRead(sql) { tables in tables.completions.map(\.record).filter { $0.key == key } }
    }

    /// How many runs, consumers, signal records and completions the store holds, and its deliveries
    /// by stored state: one row per stored state (one without a state when there are no deliveries),
    /// each with the counts of the other tables.
    package static let statistics = StoreRead(statisticsSQL) { tables in
        SignalStoreStatistics(
            runs: tables.runs.count, consumers: tables.consumers.count, signals: tables.signals.count,
            completions: tables.completions.count,
            deliveries: tables.deliveries.values.map { (state: $0.state.rawValue, count: 1) })
    }

    private static let statisticsSQL = SQLRead<SignalStoreStatistics>(
        "reading statistics",
        SQLStatement(
            """
            SELECT t.runs, t.consumers, t.signals, t.completions, d.state, d.count
            FROM (SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM consumers) AS consumers,
                         (SELECT count(*) FROM signals) AS signals, (SELECT count(*) FROM completions) AS completions) t
            LEFT JOIN (SELECT state, count(*) AS count FROM deliveries GROUP BY state) d ON 1 = 1
            """)
    ) { (rows: [SQLRow]) throws(SignalError) -> SignalStoreStatistics in
        var tables = (runs: 0, consumers: 0, signals: 0, completions: 0)
        var deliveries: [(state: String?, count: Int)] = []
        for row in rows {
            func count(_ name: String) throws(SignalError) -> Int { try row.value(name, table: name, key: "count(*)") }
            tables = (try count("runs"), try count("consumers"), try count("signals"), try count("completions"))
            if let count: Int = row.optional("count") { deliveries.append((row.optional("state"), count)) }
        }
        return SignalStoreStatistics(
            runs: tables.runs, consumers: tables.consumers, signals: tables.signals,
            completions: tables.completions, deliveries: deliveries)
    }

    // MARK: Posting

    /// What a post of `signalID` reads before it writes: the revision of the signal's record and
    /// its consumers, in the order they registered (the order of their deliveries).
    package static func postTargets(_ signalID: String) -> StoreRead<Posting.Targets> {
        postTargets([signalID]).map { $0[signalID] ?? Posting.Targets(previousRevision: nil, consumers: []) }
    }

    /// What the posts of `signalIDs` (distinct; a bulk post reads at most ``postTargetsPerRead``) read
    /// before they write: each signal's ``postTargets(_:)-(String)``, by signal id.
    package static func postTargets(_ signalIDs: [String]) -> StoreRead<[String: Posting.Targets]> {
        let posted = signalIDs.indices.map { "(CAST($\($0 + 1) AS TEXT))" }.joined(separator: ", ")
        let sql = SQLRead(
            signalIDs.count == 1 ? "posting signal '\(signalIDs[0])'" : "posting \(signalIDs.count) signals",
            SQLStatement(
                """
                SELECT posted.column1 AS signal_id, signals.revision AS previous, consumers.consumer_id,
                       consumers.run_id, consumers.mode, consumers.delivered
                FROM (VALUES \(posted)) AS posted
                LEFT JOIN signals ON signals.signal_id = posted.column1
                LEFT JOIN consumers ON consumers.signal_id = posted.column1
                ORDER BY consumers.created_at, consumers.consumer_id
                """, signalIDs.map { .init($0) }, answer: .changes, textVaries: signalIDs.count > 1)
        ) { (rows: [SQLRow]) throws(SignalError) -> [String: Posting.Targets] in
            var targets: [String: Posting.Targets] = [:]
            for row in rows {
                let signalID: String = try row.value("signal_id", table: "signals", key: "?")
                var target = targets[signalID] ?? Posting.Targets(previousRevision: nil, consumers: [])
                if let stored = row["previous"], stored != .null {
                    target.previousRevision = try row.value("previous", table: "signals", key: signalID)
                }
                if let id: String = row.optional("consumer_id") {
                    func value<T: SQLDecodable>(_ name: String) throws(SignalError) -> T {
                        try row.value(name, table: "consumers", key: id)
                    }
                    let consumer = Posting.Consumer(
                        mode: try value("mode"), served: (try value("delivered") as Int) != 0)
                    target.consumers.append((id, try value("run_id"), consumer))
                }
                targets[signalID] = target
            }
            return targets
        }
        return StoreRead(sql) { tables in
            var targets: [String: Posting.Targets] = [:]
            for signalID in signalIDs {
                targets[signalID] = Posting.Targets(
                    previousRevision: tables.signals[signalID]?.revision,
                    consumers: tables.consumers.filter { $0.record.signalID == signalID }.map { stored in
                        let consumer = Posting.Consumer(mode: stored.record.mode.rawValue, served: stored.delivered)
                        return (stored.record.id.rawValue, stored.record.runID, consumer)
                    })
            }
            return targets
        }
    }

    /// The most signals one ``postTargets(_:)-([String])`` reads (a statement binds at most 32,766
    /// values on SQLite).
    package static let postTargetsPerRead = 500

    // MARK: Promises

    /// Promise `id`, or `nil` (never made, or removed after its retention).
    package static func promise(_ id: String) -> StoreRead<PromiseRecord?> {
        let sql = SQLRead("reading promise '\(id)'", SQLStatement("\(columns) WHERE promise_id = $1", [.init(id)])) {
            (rows: [SQLRow]) throws(SignalError) -> PromiseRecord? in
            try rows.first.map { row throws(SignalError) in try record(row) }
        }
        return StoreRead(sql) { tables in tables.promises[id] }
    }

    /// The promises, settled or pending ones only (`nil`: all), by the time they were made.
    package static func promises(settled: Bool?) -> StoreRead<[PromiseRecord]> {
        let sql = SQLRead(
            "listing promises",
            SQLStatement(
                """
                \(columns)
                WHERE CAST($1 AS BIGINT) IS NULL OR (CASE WHEN settled_at IS NULL THEN 0 ELSE 1 END) = $1
                ORDER BY created_at, promise_id
                """, [settled.map { SQLValue($0 ? 1 : 0) } ?? .null])
        ) { (rows: [SQLRow]) throws(SignalError) -> [PromiseRecord] in
            var records: [PromiseRecord] = []
            for row in rows { records.append(try record(row)) }
            return records
        }
        return StoreRead(sql) { tables in
            tables.promises.values.filter { settled == nil || $0.isSettled == settled }
                .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }
    }

    private static let columns = """
        SELECT promise_id, value_type, component, limited, consumer_id, created_at, deadline, retention,
               settlement_key, outcome, body, settled_at FROM promises
        """

    /// The promise a row of ``columns`` holds.
    private static func record(_ row: SQLRow) throws(SignalError) -> PromiseRecord {
        let id: String = try row.value("promise_id", table: "promises", key: "?")
        let body: [UInt8]? = row.optional("body")
        return try PromiseRecord(
            stored: id, valueType: try row.value("value_type", table: "promises", key: id),
            component: try row.value("component", table: "promises", key: id),
            limited: try row.value("limited", table: "promises", key: id), consumer: row.optional("consumer_id"),
            createdAt: try row.value("created_at", table: "promises", key: id), deadline: row.optional("deadline"),
            retention: try row.value("retention", table: "promises", key: id),
            settlementKey: row.optional("settlement_key"), outcome: row.optional("outcome"),
            body: body.map { Data($0) },
            settledAt: row.optional("settled_at"))
    }
}
