import Foundation
import GRDB
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalSQL

extension SQLiteSignalStore {
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
        let previous = try Int.fetchOne(db, cached: HotPathStatements.signalRevision(signalID))
        let rows = try Row.fetchAll(db, cached: HotPathStatements.signalConsumers(signalID))
        let keys: [String] = try rows.map { row in try Self.column(row, "consumer_id", table: "consumers", key: "?")
        }
        let decision = posting.decide(
            previousRevision: previous,
            consumers: try zip(rows, keys).map { row, key in
                Posting.Consumer(
                    mode: try Self.column(row, "mode", table: "consumers", key: key),
                    served: (try Self.column(row, "delivered", table: "consumers", key: key) as Int) != 0)
            })
        for (index, serves) in decision.deliveries {
            let (row, key) = (rows[index], keys[index])
            try db.execute(
                cached: HotPathStatements.insertDelivery(
                    consumer: key, signalID: signalID, revision: decision.revision,
                    component: try Self.column(row, "component", table: "consumers", key: key),
                    owner: try Self.column(row, "run_id", table: "consumers", key: key),
                    lifetime: try Self.column(row, "lifetime", table: "consumers", key: key),
                    handlerID: try Self.column(row, "handler_id", table: "consumers", key: key), now: now))
            try db.execute(
                cached: HotPathStatements.insertBody(
                    delivery: db.lastInsertedRowID, handler: SQLValue(row["handler"] as DatabaseValue),
                    payload: payload))
            if serves { try db.execute(cached: HotPathStatements.markServed(key)) }
        }
        if decision.keepsRecord {
            try db.execute(
                cached: HotPathStatements.keepSignal(
                    signalID, revision: decision.revision, payload: posting.keptPayload, now: now,
                    keepUntil: posting.keepUntil))
        } else {
            try db.execute(cached: HotPathStatements.removeSignal(signalID))
        }
        return posting.result(revision: decision.revision, deliveries: decision.deliveries.count)
    }
}
