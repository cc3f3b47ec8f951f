// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging
import NIOCore
import PostgresNIO
import SignalSQL

// MARK: Promises

extension PostgresSignalStore: PromiseStore {
    @_spi(SignalStoreDriver)
    public func insertPromise(_ promise: PromiseRecord, applying plan: StorePlan) async throws(SignalError) -> Bool {
        try await prepare()
        let created = promise.createdAt.timeIntervalSince1970
        return try await connections.transaction("making promise '\(promise.id)'") { connection in
            let inserted = try await self.count(
                connection.query(
                    """
                    WITH i AS (INSERT INTO promises (promise_id, value_type, component, limited, consumer_id, created_at,
                                                     deadline, retention)
                               VALUES (\(promise.id), \(promise.valueType), \(promise.component),
                                       \(promise.storedLimited), \(promise.fallbackConsumer?.rawValue),
                                       \(created), \(promise.deadline?.timeIntervalSince1970), \(promise.retention))
                               ON CONFLICT (promise_id) DO NOTHING RETURNING 1)
                    SELECT count(*)::bigint FROM i
                    """, logger: self.options.logger))
            guard inserted == 1 else {
                // Made by this call's first try, whose answer a lost connection took: the same record.
                let same = try await self.count(
                    connection.query(
                        """
                        SELECT count(*)::bigint FROM promises WHERE promise_id = \(promise.id) AND created_at = \(created)
                        AND consumer_id IS NOT DISTINCT FROM \(promise.fallbackConsumer?.rawValue)
                        """, logger: self.options.logger))
                return same == 1
            }
            _ = try await self.run(plan, connection)
            return true
        }
    }

    @_spi(SignalStoreDriver)
    public func promise(_ id: String) async throws(SignalError) -> PromiseRecord? {
        try await prepare()
        return try await connections.run("reading promise '\(id)'") { connection, _ in
            try await self.promiseRecords(
                connection.query(
                    "\(unescaped: Self.promiseColumns) WHERE promise_id = \(id)", logger: self.options.logger)
            ).first
        }
    }

    @_spi(SignalStoreDriver)
    public func settlePromise(
        _ id: String, with settlement: PromiseSettlementRecord, ifValueTypeIn valueTypes: [String]?,
        thenPosting post: @escaping @Sendable (PromiseRecord) throws(SignalError) -> PromiseSettlementPost?
    ) async throws(SignalError) -> PromiseRecord? {
        if readsOnly { throw .storeReadOnly(path: location, operation: "settling promise '\(id)'") }
        try await prepare()
        let at = settlement.settledAt.timeIntervalSince1970
        return try await connections.transaction("settling promise '\(id)'") { connection in
            guard
                let stored = try await self.promiseRecords(
                    connection.query(
                        "\(unescaped: Self.promiseColumns) WHERE promise_id = \(id) FOR UPDATE",
                        logger: self.options.logger)
                ).first
            else { return nil }
            let settled = stored.settled(by: settlement, ifValueTypeIn: valueTypes)
            if settled != nil {
                try await connection.query(
                    """
                    UPDATE promises SET settlement_key = \(settlement.key), outcome = \(settlement.outcome.rawValue),
                        body = \(Data(settlement.body)), settled_at = \(at), keep_until = \(at) + retention
                    WHERE promise_id = \(id)
                    """, logger: self.options.logger)
            }
            let record = settled ?? stored
            if let request = try post(record) {
                let statement = self.postStatement(
                    Posting(signalID: request.signalID, payload: request.payload, keepUntil: nil),
                    now: Date().timeIntervalSince1970)
                for try await _ in try await connection.execute(statement, logger: self.options.logger) {}
            }
            if PromiseRecord.wakeUp(settled: settled != nil, record) != nil { try await self.notify(connection) }
            return record
        }
    }

    @_spi(SignalStoreDriver)
    public func promises(settled: Bool?) async throws(SignalError) -> [PromiseRecord] {
        try await prepare()
        return try await connections.run("listing promises") { connection, _ in
            try await self.promiseRecords(
                connection.query(
                    """
                    \(unescaped: Self.promiseColumns)
                    WHERE \(settled)::boolean IS NULL OR (settled_at IS NOT NULL) = \(settled)::boolean
                    ORDER BY created_at, promise_id
                    """, logger: self.options.logger))
        }
    }

    @_spi(SignalStoreDriver)
    public func removePromises(keptUntilBefore now: Date) async throws(SignalError) -> Int {
        try await prepare()
        return try await connections.run("removing promises kept until before \(now)") { connection, _ in
            try await self.count(
                connection.query(
                    """
                    WITH d AS (DELETE FROM promises WHERE keep_until < \(now.timeIntervalSince1970) RETURNING 1)
                    SELECT count(*)::bigint FROM d
                    """, logger: self.options.logger))
        }
    }

    private static let promiseColumns = """
        SELECT promise_id, value_type, component, limited, consumer_id, created_at, deadline, retention,
               settlement_key, outcome, body, settled_at FROM promises
        """

    private func promiseRecords(_ rows: PostgresRowSequence) async throws -> [PromiseRecord] {
        var records: [PromiseRecord] = []
        for try await (
            id, type, component, limited, consumer, created, deadline, retention, key, outcome, body, settledAt
        )
            in rows.decode(
                (String, String, String, Int, String?, Double, Double?, Double, String?, String?, Data?, Double?).self)
        {
            records.append(
                try PromiseRecord(
                    stored: id, valueType: type, component: component, limited: limited, consumer: consumer,
                    createdAt: created, deadline: deadline, retention: retention, settlementKey: key, outcome: outcome,
                    body: body, settledAt: settledAt))
        }
        return records
    }
}
#endif
