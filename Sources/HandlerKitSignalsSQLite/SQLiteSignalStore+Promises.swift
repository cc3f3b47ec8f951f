import Foundation
import GRDB
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalSQL

// MARK: Promises

extension SQLiteSignalStore: PromiseStore {
    @_spi(SignalStoreDriver)
    public func insertPromise(_ promise: PromiseRecord, applying plan: StorePlan) async throws(SignalError) -> Bool {
        let history = options.completionHistory.seconds
        let counts = try await write("making promise '\(promise.id)'") { db -> [Int]? in
            try db.execute(
                sql: """
                    INSERT INTO promises (promise_id, value_type, component, limited, consumer_id, created_at, deadline,
                                          retention)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (promise_id) DO NOTHING
                    """,
                arguments: [
                    promise.id, promise.valueType, promise.component, promise.storedLimited,
                    promise.fallbackConsumer?.rawValue, promise.createdAt.timeIntervalSince1970,
                    promise.deadline?.timeIntervalSince1970, promise.retention,
                ])
            guard db.changesCount == 1 else { return nil }
            return try Self.run(plan, db, history: history)
        }
        guard let counts else { return false }
        if plan.wakeUp(counts: counts) != nil { WakeFile.notify(wakePath) }
        return true
    }

    @_spi(SignalStoreDriver)
    public func promise(_ id: String) async throws(SignalError) -> PromiseRecord? {
        try await read("reading promise '\(id)'") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM promises WHERE promise_id = ?", arguments: [id])
                .map(Self.promiseRecord)
        }
    }

    @_spi(SignalStoreDriver)
    public func settlePromise(
        _ id: String, with settlement: PromiseSettlementRecord, ifValueTypeIn valueTypes: [String]?,
        thenPosting post: @escaping @Sendable (PromiseRecord) throws(SignalError) -> PromiseSettlementPost?
    ) async throws(SignalError) -> PromiseRecord? {
        let (record, settled, posted) = try await write("settling promise '\(id)'") {
            db -> (PromiseRecord?, Bool, PostResult?) in
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM promises WHERE promise_id = ?"), arguments: [id])
            guard let stored = try row.map(Self.promiseRecord) else { return (nil, false, nil) }
            let settled = stored.settled(by: settlement, ifValueTypeIn: valueTypes)
            if settled != nil {
                try db.cachedStatement(
                    sql: """
                        UPDATE promises SET settlement_key = ?, outcome = ?, body = ?, settled_at = ?, keep_until = ? + retention
                        WHERE promise_id = ?
                        """
                ).execute(arguments: [
                    settlement.key, settlement.outcome.rawValue, Data(settlement.body),
                    settlement.settledAt.timeIntervalSince1970, settlement.settledAt.timeIntervalSince1970, id,
                ])
            }
            let record = settled ?? stored
            let posted = try post(record).map { request in
                try Self.post(Posting(signalID: request.signalID, payload: request.payload, keepUntil: nil), in: db)
            }
            return (record, settled != nil, posted)
        }
        if PromiseRecord.wakeUp(settled: settled, record) != nil || (posted?.deliveries ?? 0) > 0 {
            WakeFile.notify(wakePath)
        }
        return record
    }

    @_spi(SignalStoreDriver)
    public func promises(settled: Bool?) async throws(SignalError) -> [PromiseRecord] {
        try await read("listing promises") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM promises WHERE ?1 IS NULL OR (settled_at IS NOT NULL) = ?1
                    ORDER BY created_at, promise_id
                    """, arguments: [settled]
            ).map(Self.promiseRecord)
        }
    }

    @_spi(SignalStoreDriver)
    public func removePromises(keptUntilBefore now: Date) async throws(SignalError) -> Int {
        try await write("removing promises kept until before \(now)") { db in
            try db.execute(sql: "DELETE FROM promises WHERE keep_until < ?", arguments: [now.timeIntervalSince1970])
            return db.changesCount
        }
    }

    private static func promiseRecord(_ row: Row) throws -> PromiseRecord {
        let id: String = try column(row, "promise_id", table: "promises", key: "?")
        func value<T: DatabaseValueConvertible>(_ name: String) throws -> T {
            try column(row, name, table: "promises", key: id)
        }
        func optional<T: DatabaseValueConvertible>(_ name: String) -> T? {
            T.fromDatabaseValue(row[name] as DatabaseValue)
        }
        return try PromiseRecord(
            stored: id, valueType: try value("value_type"), component: try value("component"),
            limited: try value("limited"), consumer: optional("consumer_id"), createdAt: try value("created_at"),
            deadline: optional("deadline"), retention: try value("retention"),
            settlementKey: optional("settlement_key"),
            outcome: optional("outcome"), body: optional("body"), settledAt: optional("settled_at"))
    }
}
