import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The SQL of durable promises (the stores' `PromiseStore`), once for both SQL stores.
package enum PromiseStatements {
    /// Records `promise` unless a promise of its id is recorded; one change when it was recorded.
    package static func insert(_ promise: PromiseRecord) -> SQLStatement {
        SQLStatement(
            """
            INSERT INTO promises (promise_id, value_type, component, limited, consumer_id, created_at, deadline,
                                  retention)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (promise_id) DO NOTHING
            """,
            [
                .init(promise.id), .init(promise.valueType), .init(promise.component), .init(promise.storedLimited),
                .init(promise.fallbackConsumer?.rawValue), .init(promise.createdAt.timeIntervalSince1970),
                .init(promise.deadline?.timeIntervalSince1970), .init(promise.retention),
            ])
    }

    /// Promise `id`, or `nil`. Read in a transaction that settles it next, on PostgreSQL its row is
    /// locked (``SQLDialect/lockingForUpdate``; `locking`).
    package static func promise(_ id: String, locking dialect: SQLDialect? = nil) -> SQLRead<PromiseRecord?> {
        SQLRead(
            "reading promise '\(id)'",
            SQLStatement("\(columns) WHERE promise_id = $1\(dialect?.lockingForUpdate ?? "")", [.init(id)])
        ) { (rows: [SQLRow]) throws(SignalError) -> PromiseRecord? in
            try rows.first.map { row throws(SignalError) in try record(row) }
        }
    }

    /// Settles promise `id` with `settlement`: it is kept for its retention from then on.
    package static func settle(_ id: String, with settlement: PromiseSettlementRecord) -> SQLStatement {
        SQLStatement(
            """
            UPDATE promises SET settlement_key = $1, outcome = $2, body = $3, settled_at = $4, keep_until = $4 + retention
            WHERE promise_id = $5
            """,
            [
                .init(settlement.key), .init(settlement.outcome.rawValue), .init(settlement.body),
                .init(settlement.settledAt.timeIntervalSince1970), .init(id),
            ])
    }

    /// The promises, settled or pending ones only (`nil`: all), by the time they were made.
    package static func promises(settled: Bool?) -> SQLRead<[PromiseRecord]> {
        SQLRead(
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
    }

    /// Removes the promises kept until before `now`; counts them.
    package static func remove(keptUntilBefore now: Date) -> SQLStatement {
        SQLStatement("DELETE FROM promises WHERE keep_until < $1", [.init(now.timeIntervalSince1970)])
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
