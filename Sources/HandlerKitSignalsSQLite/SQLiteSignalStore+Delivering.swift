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

    /// Also checks the run's lock file: when it is gone (its folder was removed), it is made and
    /// locked again while the run's record is still there; without the record the run was taken over.
    @_spi(SignalStoreDriver)
    public func start(_ delivery: ClaimedDelivery) async throws(SignalError) -> StartOutcome {
        let mark = marking(run: delivery.runID)
        return try await write("starting delivery \(delivery.key)") { db in try mark(db, delivery) }
    }

    /// Marks a delivery claimed by `runID` started in the caller's transaction (`start`), the run's
    /// lock file tested now.
    private func marking(run runID: String) -> @Sendable (Database, ClaimedDelivery) throws -> StartOutcome {
        let intact = runLocks.file(for: runID)?.isIntact ?? true
        let runsDirectory = runsDirectory
        let runLocks = runLocks
        return { db, delivery in
            func mark() throws -> Bool {
                try db.execute(cached: HotPathStatements.start(delivery))
                return db.changesCount == 1
            }
            // The usual case in one statement; the rest tells why the mark failed, or renews the lock file.
            if intact, try mark() { return StartOutcome(marked: true, runRecorded: true) }
            let recorded = try Self.isRecorded(delivery.runID, db)
            guard recorded, !intact else { return StartOutcome(marked: false, runRecorded: recorded) }
            let renewed = try RunLockFile(runID: delivery.runID, directory: runsDirectory, maker: self.fileMaker)
            runLocks.insert(renewed, for: delivery.runID)?.abandon()
            return StartOutcome(marked: try mark(), runRecorded: true)
        }
    }

    /// When the run's lock file cannot be made again to mark `next` (another process holds it: it
    /// is testing whether the run is alive), `next` is left unmarked (`CompletionOutcome.next` is
    /// `nil`) and the completion stands: undone, it would leave the delivery, whose handler
    /// returned, claimed by a run that goes on, and so run by no one until that run ends. The
    /// center marks `next` with ``start(_:)``, which gives it back when that fails too.
    @_spi(SignalStoreDriver)
    public func complete(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, thenStarting next: ClaimedDelivery?
    ) async throws(SignalError) -> CompletionOutcome {
        let now = Date().timeIntervalSince1970
        let markNext = next.map { marking(run: $0.runID) }
        return try await write("completing delivery \(delivery.key)") { db in
            let completed = try Self.complete(delivery, endingConsumer: endingConsumer, now: now, db)
            guard let next, let markNext else { return CompletionOutcome(completed: completed, next: nil) }
            do {
                return CompletionOutcome(completed: completed, next: try markNext(db, next))
            } catch SignalError.runLock {
                // Thrown before the mark changed anything (`marking(run:)` renews the file first).
                return CompletionOutcome(completed: completed, next: nil)
            }
        }
    }

    /// Completes `delivery` in the caller's transaction; `false` when its claim was lost.
    private static func complete(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, now: Double, _ db: Database
    ) throws -> Bool {
        try db.execute(cached: HotPathStatements.complete(delivery))
        guard db.changesCount == 1 else { return false }
        try db.execute(cached: HotPathStatements.removeBody(delivery.rowID))
        try db.execute(cached: HotPathStatements.recordCompletion(delivery, now: now))
        guard endingConsumer else { return true }
        try db.execute(cached: HotPathStatements.removeConsumer(delivery.consumerID.rawValue))
        if db.changesCount > 0 {
            try db.execute(cached: HotPathStatements.removeUnusedSignal(delivery.signalID, now: now))
        }
        return true
    }
}
