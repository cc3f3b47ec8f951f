// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging
import NIOCore
import PostgresNIO
import SignalSQL

extension PostgresSignalStore {
    // MARK: Delivering

    /// A claim in one statement (`PostgresStatements.Claim`), with exactly the effects of the core's
    /// claim program, which the differential tests compare (except that a run taken over is not told
    /// so here: it finds out at its next mark): the claim marks the delivery that runs first started.
    /// A claim tried again after its connection was lost also takes back what the lost try claimed
    /// (its answer never came).
    func claim(_ request: ClaimRequest, now: Double) async throws(SignalError) -> ClaimedBatch {
        let (runID, owner, limit, startsFirst) = (request.runID, request.owner, request.limit, request.startingFirst)
        let running = request.inProgress.sorted()
        return try await connections.run("claiming deliveries for run \(runID)") { connection, isRetry in
            if request.reclaimingLost || isRetry {
                try await self.claim(
                    PostgresStatements.ClaimWithLostClaims(
                        runID: runID, owner: owner, now: now, running: running, limit: limit,
                        startsFirst: startsFirst),
                    connection)
            } else {
                try await self.claim(
                    PostgresStatements.Claim(
                        runID: runID, owner: owner, now: now, running: running, limit: limit,
                        startsFirst: startsFirst),
                    connection)
            }
        }
    }

    /// Runs a claim statement for `runID`; deliveries the core finds unreadable are parked as dead.
    /// When the statement marked the first delivery started, `firstStart` says so; when the delivery
    /// it marked was unreadable, `nil` (the center marks the first with ``start(_:)``).
    private func claim<Statement: ClaimStatement>(
        _ statement: Statement, _ connection: PostgresConnection
    ) async throws -> ClaimedBatch {
        let runID = statement.runID
        let rows = try await connection.execute(statement, logger: options.logger)
        var claimed: [ClaimedDelivery] = []
        var marked: Set<Int64> = []
        var recorded = true
        var unreadable: [(id: Int64, reason: String)] = []
        for try await (
            id, key, consumer, signal, revision, attempt, handler, payload, mode, crashed, started, runRecorded
        )
            in rows
        {
            if started { marked.insert(id) }
            recorded = runRecorded
            let reading = ClaimedDelivery.reading(claimedBy: runID) {
                ClaimedColumns(
                    rowID: id, key: key, consumer: consumer, signalID: signal, revision: revision, attempt: attempt,
                    crashed: crashed, handler: handler, payload: payload, mode: mode)
            }
            switch reading {
            case .run(let delivery): claimed.append(delivery)
            case .park(let reason): unreadable.append((id, reason))
            }
        }
        for (id, reason) in unreadable {
            _ = try await execute(HotPathStatements.parkUnreadable(id, reason: reason), connection)
        }
        let deliveries = ClaimedDelivery.runningOrder(claimed)
        guard statement.startsFirst, let first = deliveries.first else {
            return ClaimedBatch(deliveries: deliveries, firstStart: nil)
        }
        let start: StartOutcome? =
            marked.contains(first.rowID) ? .started : recorded ? nil : StartOutcome(marked: false, runRecorded: false)
        return ClaimedBatch(deliveries: deliveries, firstStart: start)
    }

    /// A completion in one statement (`PostgresStatements.Complete`), with exactly the effects of the
    /// core's completion program. A completion tried again after its connection was lost finds out
    /// from the history of completions whether the lost try committed.
    func complete(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, thenStarting next: ClaimedDelivery?, now: Double
    ) async throws(SignalError) -> CompletionOutcome {
        let statement = PostgresStatements.Complete(
            rowID: delivery.rowID, runID: delivery.runID, attempt: delivery.attempt, now: now,
            endingConsumer: endingConsumer, nextRowID: next?.rowID, nextAttempt: next?.attempt)
        return try await connections.run("completing delivery \(delivery.key)") { connection, isRetry in
            var (completed, recorded, started) = (0, true, 0)
            for try await row in try await connection.execute(statement, logger: self.options.logger) {
                (completed, recorded, started) = row
            }
            let nextOutcome = next.map { _ in StartOutcome(marked: started == 1, runRecorded: recorded) }
            if completed == 0 && isRetry {
                // The connection was lost while the first try committed: its completion is recorded
                // (the completion's record is its id, as `transactionOnce` records a write's).
                let history = try await self.run(StoreReads.completions(of: delivery.key).sql, on: connection)
                let recordedBefore = history.contains { $0.runID == delivery.runID && $0.attempt == delivery.attempt }
                return CompletionOutcome(completed: recordedBefore, next: nextOutcome)
            }
            return CompletionOutcome(completed: completed == 1, next: nextOutcome)
        }
    }
}

#endif
