import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The reads of `SignalStore` that are the same SQL for both SQL stores, written once: a store runs
/// each in a read transaction (`SQLRead`) and returns its value.
package enum StoreReads {
    /// The runs of `component`: recorded, and named by its consumers and by its deliveries.
    package static func runs(of component: String) -> SQLRead<RunsOfComponent> {
        SQLRead(
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
    }

    /// The consumers of `component`, or of all components, in the order they were registered.
    package static func consumers(of component: String?) -> SQLRead<[ConsumerRecord]> {
        SQLRead(
            "listing consumers",
            SQLStatement(
                """
                SELECT consumer_id, signal_id, component, run_id, lifetime, mode, handler, handler_id FROM consumers
                WHERE CAST($1 AS TEXT) IS NULL OR component = $1 ORDER BY created_at, consumer_id
                """, [.init(component)])
        ) { (rows: [SQLRow]) throws(SignalError) -> [ConsumerRecord] in
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
    }

    /// The dead deliveries of `component`, or of all components, oldest first. A record with a column
    /// that cannot be read is still listed (an operator can requeue or discard it by its key), with
    /// what is wrong with it added to its reason.
    package static func deadDeliveries(of component: String?) -> SQLRead<[DeadDelivery]> {
        SQLRead(
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
    }

    /// The completions recorded for `key`, oldest first.
    package static func completions(of key: DeliveryKey) -> SQLRead<[CompletionRecord]> {
        SQLRead(
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
    }

    /// How many runs, consumers, signal records and completions the store holds, and its deliveries
    /// by stored state: one row per stored state (one without a state when there are no deliveries),
    /// each with the counts of the other tables.
    package static let statistics = SQLRead<SignalStoreStatistics>(
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

    /// Whether run `run` is recorded (not ended, not taken over): read in a takeover's transaction,
    /// where a taker that was itself taken over takes nothing over.
    package static func isRecorded(_ run: String) -> SQLRead<Bool> {
        SQLRead(
            "finding run \(run)", SQLStatement("SELECT count(*) AS recorded FROM runs WHERE run_id = $1", [.init(run)])
        ) { (rows: [SQLRow]) throws(SignalError) -> Bool in
            let count: Int =
                try rows.first.map { row throws(SignalError) in
                    try row.value("recorded", table: "runs", key: run)
                } ?? 0
            return count > 0
        }
    }
}
