import Foundation
import GRDB
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalSQL

extension SQLiteSignalStore {
    // MARK: Statements run for every signal (built once)

    private static let insertDeliverySQL = """
        INSERT INTO deliveries (delivery_key, consumer_id, signal_id, revision, component, owner_run, lifetime,
                                handler_id, state, attempt, not_before, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, \(pending), 0, ?, ?)
        """

    // MARK: Posting

    @_spi(SignalStoreDriver)
    public func post(_ signalID: String, payload: [UInt8], keepUntil: Date?) async throws(SignalError) -> PostResult {
        let hook = options.faultHook
        let posting = Posting(signalID: signalID, payload: payload, keepUntil: keepUntil)
        let result = try await write("posting signal '\(signalID)'") { db in
            let result = try Self.post(posting, in: db)
            hook?(.postBeforeCommit)
            return result
        }
        if result.deliveries > 0 { WakeFile.notify(wakePath) }
        return result
    }

    /// Posts in the transaction of `db` (``post(_:payload:keepUntil:)`` without its wake-up).
    static func post(_ posting: Posting, in db: Database) throws -> PostResult {
        let signalID = posting.signalID
        let payload = posting.payload
        let now = Date().timeIntervalSince1970
        let previous = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT revision FROM signals WHERE signal_id = ?"),
            arguments: [signalID])
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT consumer_id, component, run_id, lifetime, mode, handler, handler_id, delivered FROM consumers
                    WHERE signal_id = ? ORDER BY created_at, consumer_id
                    """), arguments: [signalID])
        let keys: [String] = try rows.map { row in try Self.column(row, "consumer_id", table: "consumers", key: "?")
        }
        let decision = posting.decide(
            previousRevision: previous,
            consumers: try zip(rows, keys).map { row, key in
                Posting.Consumer(
                    mode: try Self.column(row, "mode", table: "consumers", key: key),
                    served: (try Self.column(row, "delivered", table: "consumers", key: key) as Int) != 0)
            })
        let payloadData = Data(payload)
        for (index, serves) in decision.deliveries {
            let (row, key) = (rows[index], keys[index])
            try Self.insertDelivery(
                db, consumer: key, signalID: signalID, revision: decision.revision,
                component: try Self.column(row, "component", table: "consumers", key: key),
                owner: try Self.column(row, "run_id", table: "consumers", key: key),
                lifetime: try Self.column(row, "lifetime", table: "consumers", key: key),
                handler: row["handler"] as DatabaseValue,
                handlerID: try Self.column(row, "handler_id", table: "consumers", key: key),
                payload: payloadData, now: now)
            if serves {
                try db.cachedStatement(sql: "UPDATE consumers SET delivered = 1 WHERE consumer_id = ?").execute(
                    arguments: [key])
            }
        }
        if decision.keepsRecord {
            try db.cachedStatement(
                sql: """
                    INSERT INTO signals (signal_id, revision, payload, posted_at, keep_until) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(signal_id) DO UPDATE SET revision = excluded.revision, payload = excluded.payload,
                        posted_at = excluded.posted_at, keep_until = excluded.keep_until
                    """
            ).execute(arguments: [signalID, decision.revision, Data(posting.keptPayload), now, posting.keepUntil])
        } else {
            try db.execute(sql: "DELETE FROM signals WHERE signal_id = ?", arguments: [signalID])
        }
        return posting.result(revision: decision.revision, deliveries: decision.deliveries.count)
    }

    private static func insertDelivery(
        _ db: Database, consumer: String, signalID: String, revision: Int, component: String, owner: String,
        lifetime: String,
        handler: some DatabaseValueConvertible, handlerID: String, payload: Data, now: Double
    ) throws {
        try db.cachedStatement(sql: Self.insertDeliverySQL).execute(arguments: [
            DeliveryKey(consumer: consumer, revision: revision).rawValue, consumer, signalID, revision,
            component, owner, lifetime, handlerID, now, now,
        ])
        try db.cachedStatement(sql: "INSERT INTO delivery_bodies (delivery_id, handler, payload) VALUES (?, ?, ?)")
            .execute(arguments: [db.lastInsertedRowID, handler, payload])
    }
}

/// The delivery states as the statements write them.
private let pending = DeliveryState.pending.sqlLiteral
