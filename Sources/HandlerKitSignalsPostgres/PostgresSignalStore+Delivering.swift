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

    /// One statement: the claim marks the delivery that runs first started.
    @_spi(SignalStoreDriver)
    public func claim(for runID: String, limit: Int, startingFirst: Bool) async throws(SignalError) -> ClaimedBatch {
        try await prepare()
        let now = Date().timeIntervalSince1970
        let running = inFlight.withLock { Array($0) }
        // Taken (and cleared) before the claim, so a failure of another operation meanwhile sets it again.
        let recovering = claimMayBeLost.withLock { mayBeLost in
            defer { mayBeLost = false }
            return mayBeLost
        }
        let claimed: ClaimedBatch
        do {
            claimed = try await connections.run("claiming deliveries for run \(runID)") { connection, isRetry in
                if recovering || isRetry {
                    try await self.claim(
                        PostgresStatements.ClaimWithLostClaims(
                            runID: runID, now: now, running: running, limit: limit, startsFirst: startingFirst),
                        connection)
                } else {
                    try await self.claim(
                        PostgresStatements.Claim(
                            runID: runID, now: now, running: running, limit: limit, startsFirst: startingFirst),
                        connection)
                }
            }
        } catch {
            claimMayBeLost.withLock { $0 = true }
            throw error
        }
        inFlight.withLock { $0.formUnion(claimed.deliveries.map { $0.rowID }) }
        // A first delivery that does not start is no longer in progress here.
        if let first = claimed.deliveries.first, let start = claimed.firstStart, start != .started {
            _ = inFlight.withLock { $0.remove(first.rowID) }
        }
        return claimed
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

    @_spi(SignalStoreDriver)
    public func start(_ delivery: ClaimedDelivery) async throws(SignalError) -> StartOutcome {
        let statement = PostgresStatements.Start(
            rowID: delivery.rowID, runID: delivery.runID, attempt: delivery.attempt)
        let outcome = try await connections.run("starting delivery \(delivery.key)") { connection, _ in
            var outcome = StartOutcome.claimLost
            for try await (recorded, started) in try await connection.execute(statement, logger: self.options.logger) {
                outcome = StartOutcome(marked: started == 1, runRecorded: recorded)
            }
            return outcome
        }
        // A delivery that does not start is no longer in progress here.
        if outcome != .started { _ = inFlight.withLock { $0.remove(delivery.rowID) } }
        return outcome
    }

    @_spi(SignalStoreDriver)
    public func complete(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, thenStarting next: ClaimedDelivery?
    ) async throws(SignalError) -> CompletionOutcome {
        var outcome = CompletionOutcome(completed: false, next: nil)
        _ = try await settling(delivery) { () throws(SignalError) in
            outcome = try await completeClaimed(delivery, endingConsumer: endingConsumer, thenStarting: next)
            return outcome.completed
        }
        // A next delivery that does not start is no longer in progress here.
        if let next, let started = outcome.next, started != .started {
            _ = inFlight.withLock { $0.remove(next.rowID) }
        }
        return outcome
    }

    /// Runs `settle` for a delivery in progress, which is then no longer in progress; when it fails,
    /// the delivery may stay claimed, so the next claim looks for lost claims.
    private func settling(
        _ delivery: ClaimedDelivery, _ settle: () async throws(SignalError) -> Bool
    ) async throws(SignalError) -> Bool {
        defer { _ = inFlight.withLock { $0.remove(delivery.rowID) } }
        do {
            return try await settle()
        } catch {
            claimMayBeLost.withLock { $0 = true }
            throw error
        }
    }

    private func completeClaimed(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, thenStarting next: ClaimedDelivery?
    ) async throws(SignalError) -> CompletionOutcome {
        let now = Date().timeIntervalSince1970
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
                // The connection was lost while the first try committed: its completion is recorded.
                let recordedBefore =
                    try await self.count(
                        connection.query(
                            """
                            SELECT count(*) FROM completions WHERE delivery_key = \(delivery.key.rawValue)
                            AND run_id = \(delivery.runID) AND attempt = \(delivery.attempt)
                            """, logger: self.options.logger)) > 0
                return CompletionOutcome(completed: recordedBefore, next: nextOutcome)
            }
            return CompletionOutcome(completed: completed == 1, next: nextOutcome)
        }
    }
}

#endif
