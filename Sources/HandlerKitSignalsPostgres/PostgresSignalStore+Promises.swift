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
    public func settlePromise(
        _ id: String, with settlement: PromiseSettlementRecord, ifValueTypeIn valueTypes: [String]?,
        thenPosting post: @escaping @Sendable (PromiseRecord) throws(SignalError) -> PromiseSettlementPost?
    ) async throws(SignalError) -> PromiseRecord? {
        if readsOnly { throw .storeReadOnly(path: location, operation: "settling promise '\(id)'") }
        try await prepare()
        // A try after a lost connection that finds the lost try applied answers the record as it
        // left it.
        let answer = RecordedAnswer<PromiseRecord?>(
            encode: { $0 == nil ? "none" : "record" },
            decode: { text, connection in
                switch text {
                case "none": .some(nil)
                case "record": .some(try await self.run(StoreReads.promiseSQL(id, locking: .postgres), on: connection))
                default: nil
                }
            })
        return try await transactionOnce("settling promise '\(id)'", answer: answer) { connection in
            guard let stored = try await self.run(StoreReads.promiseSQL(id, locking: .postgres), on: connection)
            else { return nil }
            let settled = stored.settled(by: settlement, ifValueTypeIn: valueTypes)
            if settled != nil { _ = try await self.execute(PromiseStatements.settle(id, with: settlement), connection) }
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

}
#endif
