import Foundation
import GRDB
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalSQL

extension SQLiteSignalStore {
    // MARK: Delivering

    /// Also checks the run's lock file, as ``start(_:)`` does.
    @_spi(SignalStoreDriver)
    public func claim(_ request: ClaimRequest) async throws(SignalError) -> ClaimedBatch {
        let now = Date().timeIntervalSince1970
        let runID = request.runID
        // A read first: when nothing is due (a wake-up for another component's post), no write lock is
        // taken. A claim that takes back lost claims looks in the write transaction only.
        let anyDue: (@Sendable (Database) throws -> Bool)? =
            request.reclaimingLost
            ? nil
            : { @Sendable db in try Bool.fetchOne(db, cached: HotPathStatements.anyDue(run: runID, now: now)) ?? false }
        let mark = request.startingFirst ? marking(run: runID) : nil
        return try await write(
            "claiming deliveries for run \(runID)", ifNeeded: anyDue,
            otherwise: ClaimedBatch(deliveries: [], firstStart: nil)
        ) { db in
            let rows = try Row.fetchAll(db, cached: HotPathStatements.claim(request, now: now))
            // Due deliveries, none claimed: a run that was taken over claims nothing, and says so.
            if rows.isEmpty, try !Self.isRecorded(runID, db) {
                return ClaimedBatch(deliveries: [], firstStart: .runTakenOver)
            }
            var claimed: [ClaimedDelivery] = []
            for row in rows {
                let reading = ClaimedDelivery.reading(claimedBy: runID) { try Self.claimedColumns(row, db) }
                switch reading {
                case .run(let delivery): claimed.append(delivery)
                case .park(let reason):
                    let id: Int64 = try Self.column(row, "id", table: "deliveries", key: "?")
                    try db.execute(cached: HotPathStatements.parkUnreadable(id, reason: reason))
                }
            }
            let deliveries = ClaimedDelivery.runningOrder(claimed)
            return ClaimedBatch(deliveries: deliveries, firstStart: try deliveries.first.flatMap { try mark?(db, $0) })
        }
    }

    /// The columns of a claimed delivery, with its body and its consumer's mode read in `db`.
    private static func claimedColumns(_ row: Row, _ db: Database) throws -> ClaimedColumns {
        let key: String = try column(row, "delivery_key", table: "deliveries", key: "row \(row["id"] as DatabaseValue)")
        func value<T: DatabaseValueConvertible>(_ name: String) throws -> T {
            try column(row, name, table: "deliveries", key: key)
        }
        let body = try Row.fetchOne(
            db, cached: HotPathStatements.claimedBody(consumer: try value("consumer_id"), delivery: try value("id")))
        func bodyValue(_ name: String) throws -> Data? {
            try body.map { body in try column(body, name, table: "delivery_bodies", key: key) }
        }
        return ClaimedColumns(
            rowID: try value("id"), key: key, consumer: try value("consumer_id"), signalID: try value("signal_id"),
            revision: try value("revision"), attempt: try value("attempt"), crashed: (try value("crashed") as Int) != 0,
            handler: try bodyValue("handler"), payload: try bodyValue("payload"),
            mode: body.flatMap { String.fromDatabaseValue($0["mode"] as DatabaseValue) })
    }

    /// Marks a delivery claimed by `runID` started in the caller's transaction, as
    /// `SignalStore.start(_:)` does, the run's lock file tested now (`renewingLockFile(of:)`).
    private func marking(run runID: String) -> @Sendable (Database, ClaimedDelivery) throws -> StartOutcome {
        let renew = renewingLockFile(of: runID)
        return { db, delivery in
            try renew?(db)
            // The usual case in one statement; a read tells why a mark failed.
            try db.execute(cached: HotPathStatements.start(delivery))
            if db.changesCount == 1 { return .started }
            return StartOutcome(marked: false, runRecorded: try Self.isRecorded(delivery.runID, db))
        }
    }

    /// What every mark of a started attempt of run `runID` checks first: when the run's lock file is
    /// gone (its folder was removed), a change for the mark's transaction that makes and locks it
    /// again while the run's record is still there (without the record the run was taken over, and
    /// the mark fails); `nil` while the file is intact.
    func renewingLockFile(of runID: String) -> (@Sendable (Database) throws -> Void)? {
        guard let file = runLocks.file(for: runID), !file.isIntact else { return nil }
        return { db in
            guard try Self.isRecorded(runID, db) else { return }
            let renewed = try RunLockFile(runID: runID, directory: self.runsDirectory, maker: self.fileMaker)
            self.runLocks.insert(renewed, for: runID)?.abandon()
        }
    }
}
