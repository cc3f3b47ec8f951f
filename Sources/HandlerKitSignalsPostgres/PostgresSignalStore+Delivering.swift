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
        try await connections.run("claiming deliveries for run \(request.runID)") { connection, isRetry in
            if request.reclaimingLost || isRetry {
                try await self.claim(PostgresStatements.ClaimWithLostClaims(request, now: now), connection)
            } else {
                try await self.claim(PostgresStatements.Claim(request, now: now), connection)
            }
        }
    }

    /// Runs a claim statement for `runID`; deliveries the core finds unreadable are parked as dead.
    /// When the statement marked the first delivery started, `firstStart` says so; when the delivery
    /// it marked was unreadable, `nil` (the center marks the first with ``start(_:)``).
    private func claim<Statement: ClaimStatement>(
        _ statement: Statement, _ connection: PostgresConnection
    ) async throws -> ClaimedBatch {
        var rows: [Statement.Row] = []
        for try await row in try await connection.execute(statement, logger: options.logger) { rows.append(row) }
        return try await batch(of: rows, claimedBy: statement, connection)
    }

    /// The batch of the rows a claim statement returned; deliveries the core finds unreadable are
    /// parked as dead (``claim(_:_:)``).
    private func batch<Statement: ClaimStatement>(
        of rows: [Statement.Row], claimedBy statement: Statement, _ connection: PostgresConnection
    ) async throws -> ClaimedBatch {
        let runID = statement.runID
        var claimed: [ClaimedDelivery] = []
        var marked: Set<Int64> = []
        var recorded = true
        var unreadable: [(id: Int64, reason: String)] = []
        for (id, key, consumer, signal, revision, attempt, handler, payload, mode, crashed, started, runRecorded)
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
        guard statement.marks > 0, let first = deliveries.first else {
            return ClaimedBatch(deliveries: deliveries, firstStart: nil)
        }
        let start: StartOutcome? =
            marked.contains(first.rowID) ? .started : recorded ? nil : StartOutcome(marked: false, runRecorded: false)
        let allStarted = statement.marks >= statement.limit && deliveries.allSatisfy { marked.contains($0.rowID) }
        return ClaimedBatch(deliveries: deliveries, firstStart: start, allStarted: allStarted)
    }

    /// A group of completions (`StoreProgram.completeGroup(_:thenClaiming:now:)`): with its claim, in
    /// one statement (`PostgresStatements.CompleteGroupThenClaim`); without one, or with one that
    /// takes back lost claims, in one statement (`PostgresStatements.CompleteGroup`) and then the
    /// claim in another. Each completion checks its own claim, so the effects are the group's. A
    /// group tried again after its connection was lost finds out from the history of completions
    /// which the lost try completed.
    func complete(
        _ group: [(delivery: ClaimedDelivery, endingConsumer: Bool)], thenClaiming request: ClaimRequest?, now: Double
    ) async throws(SignalError) -> GroupCompletion {
        let statement = PostgresStatements.CompleteGroup(
            rowIDs: group.map(\.delivery.rowID), runIDs: group.map(\.delivery.runID),
            attempts: group.map(\.delivery.attempt), endingConsumers: group.map(\.endingConsumer), now: now)
        if let request, !request.reclaimingLost {
            return try await complete(group, statement, thenClaiming: request, now: now)
        }
        let completed = try await connections.run("completing \(group.count) deliveries") { connection, isRetry in
            try await self.complete(group, statement, isRetry: isRetry, connection)
        }
        guard let request else { return GroupCompletion(completed: completed, claimed: nil) }
        return GroupCompletion(completed: completed, claimed: try await claim(request, now: now))
    }

    /// The group `statement` completes, and the claim `request` asks for, in one statement
    /// (`PostgresStatements.CompleteGroupThenClaim`) and one round trip. Tried again after its
    /// connection was lost, the two run apart as above: the completions the lost try made are found
    /// in the history, and the claim takes back what the lost try claimed.
    private func complete(
        _ group: [(delivery: ClaimedDelivery, endingConsumer: Bool)], _ statement: PostgresStatements.CompleteGroup,
        thenClaiming request: ClaimRequest, now: Double
    ) async throws(SignalError) -> GroupCompletion {
        let claim = PostgresStatements.Claim(request, now: now)
        let both = PostgresStatements.CompleteGroupThenClaim(claim: claim, group: statement)
        return try await connections.run("completing \(group.count) deliveries and claiming") { connection, isRetry in
            if isRetry {
                let completed = try await self.complete(group, statement, isRetry: true, connection)
                let lost = PostgresStatements.ClaimWithLostClaims(request, now: now)
                return GroupCompletion(completed: completed, claimed: try await self.claim(lost, connection))
            }
            var done: Set<Int64> = []
            var claimed: [PostgresStatements.Claim.Row] = []
            for try await row in try await connection.execute(both, logger: self.options.logger) {
                guard let key = row.1, let consumer = row.2, let signal = row.3, let revision = row.4,
                    let attempt = row.5, let crashed = row.9, let started = row.10, let recorded = row.11
                else {
                    done.insert(row.0)
                    continue
                }
                claimed.append(
                    (row.0, key, consumer, signal, revision, attempt, row.6, row.7, row.8, crashed, started, recorded))
            }
            let completed = try await self.completions(of: group, found: done, isRetry: false, connection)
            return GroupCompletion(
                completed: completed, claimed: try await self.batch(of: claimed, claimedBy: claim, connection))
        }
    }

    /// Runs `statement`, the completion of `group`; answers whether each delivery was completed.
    private func complete(
        _ group: [(delivery: ClaimedDelivery, endingConsumer: Bool)], _ statement: PostgresStatements.CompleteGroup,
        isRetry: Bool, _ connection: PostgresConnection
    ) async throws -> [Bool] {
        var rows: Set<Int64> = []
        for try await row in try await connection.execute(statement, logger: options.logger) { rows.insert(row) }
        return try await completions(of: group, found: rows, isRetry: isRetry, connection)
    }

    /// Whether each delivery of `group` was completed: its row among those `found` completed, or, in
    /// a try after a lost connection (`isRetry`), its completion by its run and attempt recorded.
    private func completions(
        of group: [(delivery: ClaimedDelivery, endingConsumer: Bool)], found: Set<Int64>, isRetry: Bool,
        _ connection: PostgresConnection
    ) async throws -> [Bool] {
        var completed: [Bool] = []
        for (delivery, _) in group {
            if found.contains(delivery.rowID) {
                completed.append(true)
            } else if isRetry {
                // The connection was lost while the first try committed: its completion is recorded.
                let history = try await run(StoreReads.completions(of: delivery.key).sql, on: connection)
                completed.append(history.contains { $0.runID == delivery.runID && $0.attempt == delivery.attempt })
            } else {
                completed.append(false)
            }
        }
        return completed
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
