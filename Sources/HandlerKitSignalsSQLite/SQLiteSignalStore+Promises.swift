import Foundation
import GRDB
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalSQL

// MARK: Promises

extension SQLiteSignalStore: PromiseStore {
    @_spi(SignalStoreDriver)
    public func settlePromise(
        _ id: String, with settlement: PromiseSettlementRecord, ifValueTypeIn valueTypes: [String]?,
        thenPosting post: @escaping @Sendable (PromiseRecord) throws(SignalError) -> PromiseSettlementPost?
    ) async throws(SignalError) -> PromiseRecord? {
        let (record, settled, posted) = try await write("settling promise '\(id)'") {
            db -> (PromiseRecord?, Bool, PostResult?) in
            guard let stored = try Self.run(StoreReads.promiseSQL(id, locking: .sqlite), db) else {
                return (nil, false, nil)
            }
            let settled = stored.settled(by: settlement, ifValueTypeIn: valueTypes)
            if settled != nil { try db.execute(cached: PromiseStatements.settle(id, with: settlement)) }
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

}
