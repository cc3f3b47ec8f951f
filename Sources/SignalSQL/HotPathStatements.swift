@_spi(SignalStoreDriver) import HandlerKitSignals

/// The SQL of the paths every signal takes — posting, claiming, starting and completing a delivery,
/// a run's status — once for both SQL stores. A store runs these statements as they are (SQLite), or
/// prepares their text (PostgreSQL, whose prepared statements name their SQL statically); where
/// PostgreSQL runs several of them as one statement, its statement says which ones it stands for.
///
/// Each statement's placeholders are numbered as its documentation says; the builders bind them in
/// that order.
package enum HotPathStatements {
    // MARK: Posting

    /// A post's pending delivery of revision $3 to consumer $2 (key $1), owned by the consumer's run,
    /// made at $4 and due at $5, with ordering key $6 (`StoreStep.insertDelivery`), then its body: the
    /// consumer's handler and the post's payload.
    package static func insertDelivery(
        consumer: String, revision: Int, payload: [UInt8], now: Double, due: Double, orderKey: String?
    ) -> [SQLStatement] {
        let key = DeliveryKey(consumer: consumer, revision: revision).rawValue
        return [
            SQLStatement(
                """
                INSERT INTO deliveries (delivery_key, consumer_id, signal_id, revision, component, owner_run, lifetime,
                                        handler_id, state, attempt, not_before, created_at, order_key)
                SELECT $1, consumer_id, signal_id, $3, component, run_id, lifetime, handler_id, \(pending), 0, $5, $4, $6
                FROM consumers WHERE consumer_id = $2
                """, [.init(key), .init(consumer), .init(revision), .init(now), .init(due), .init(orderKey)]),
            SQLStatement(
                """
                INSERT INTO delivery_bodies (delivery_id, handler, payload)
                SELECT deliveries.id, consumers.handler, $3
                FROM deliveries JOIN consumers ON consumers.consumer_id = deliveries.consumer_id
                WHERE deliveries.delivery_key = $1 AND consumers.consumer_id = $2
                """, [.init(key), .init(consumer), .init(payload)], answer: .nothing),
        ]
    }

    /// The deliveries of a bulk post (`StoreStep.insertDeliveries`), made at $1, each as
    /// ``insertDelivery(consumer:revision:payload:now:due:orderKey:)`` makes one: their rows in the order given,
    /// then their bodies, a few hundred per pair of statements (a statement binds at most 32,766
    /// values on SQLite, 65,535 on PostgreSQL).
    package static func insertDeliveries(_ made: [NewDelivery], now: Double) -> [SQLStatement] {
        stride(from: 0, to: made.count, by: deliveriesPerStatement).flatMap { start in
            var rows: [String] = []
            var rowArguments: [SQLValue] = [.init(now)]
            var bodies: [String] = []
            var bodyArguments: [SQLValue] = []
            for (offset, delivery) in made[start..<min(start + deliveriesPerStatement, made.count)].enumerated() {
                let key = DeliveryKey(consumer: delivery.consumer, revision: delivery.revision).rawValue
                let row = rowArguments.count
                rows.append("(\(offset), $\(row + 1), $\(row + 2), $\(row + 3), $\(row + 4), $\(row + 5))")
                rowArguments += [
                    .init(key), .init(delivery.consumer), .init(delivery.revision), .init(delivery.due),
                    .init(delivery.orderKey),
                ]
                let body = bodyArguments.count
                bodies.append("($\(body + 1), $\(body + 2))")
                bodyArguments += [.init(key), .init(delivery.payload)]
            }
            // A list of values names its columns column1, column2, … in both SQLite and PostgreSQL. The
            // text of one delivery's statements is always the same (a store may keep it prepared).
            return [
                SQLStatement(
                    """
                    INSERT INTO deliveries (delivery_key, consumer_id, signal_id, revision, component, owner_run, lifetime,
                                            handler_id, state, attempt, not_before, created_at, order_key)
                    SELECT made.column2, consumers.consumer_id, consumers.signal_id, made.column4, consumers.component,
                           consumers.run_id, consumers.lifetime, consumers.handler_id, \(pending), 0, made.column5, $1,
                           made.column6
                    FROM (VALUES \(rows.joined(separator: ", "))) AS made
                    JOIN consumers ON consumers.consumer_id = made.column3
                    ORDER BY made.column1
                    """, rowArguments, answer: .changes, textVaries: rows.count > 1),
                SQLStatement(
                    """
                    INSERT INTO delivery_bodies (delivery_id, handler, payload)
                    SELECT deliveries.id, consumers.handler, made.column2
                    FROM (VALUES \(bodies.joined(separator: ", "))) AS made
                    JOIN deliveries ON deliveries.delivery_key = made.column1
                    JOIN consumers ON consumers.consumer_id = deliveries.consumer_id
                    """, bodyArguments, answer: .nothing, textVaries: rows.count > 1),
            ]
        }
    }

    /// How many deliveries one statement of ``insertDeliveries(_:now:)`` makes.
    static let deliveriesPerStatement = 500

    /// Marks consumer $1 served (a `once` consumer receives no later post).
    package static func markServed(_ consumer: String) -> SQLStatement {
        SQLStatement("UPDATE consumers SET delivered = 1 WHERE consumer_id = $1", [.init(consumer)])
    }

    /// Stores the record of a post of signal $1 at revision $2 (payload $3, posted at $4, kept until $5,
    /// delivered not before $6), replacing the record it had.
    package static func keepSignal(
        _ signalID: String, revision: Int, payload: [UInt8], now: Double, keepUntil: Double?, notBefore: Double?
    ) -> SQLStatement {
        SQLStatement(
            """
            INSERT INTO signals (signal_id, revision, payload, posted_at, keep_until, not_before)
            VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (signal_id) DO UPDATE SET revision = excluded.revision, payload = excluded.payload,
                posted_at = excluded.posted_at, keep_until = excluded.keep_until, not_before = excluded.not_before
            """,
            [.init(signalID), .init(revision), .init(payload), .init(now), .init(keepUntil), .init(notBefore)])
    }

    /// Removes the record of signal $1 (a post that keeps none).
    package static func removeSignal(_ signalID: String) -> SQLStatement {
        SQLStatement("DELETE FROM signals WHERE signal_id = $1", [.init(signalID)])
    }

    // MARK: Claiming

    /// The statement of a change that answers the rows it changed, as both SQL stores read it (the
    /// PostgreSQL store claims with a prepared statement of its own, `StoreProgram.shortcut`).
    package static func statement(for change: StoreChange) -> SQLStatement {
        switch change {
        case .claim(let request, let now): claim(request, now: now)
        }
    }

    /// Which deliveries of owner `owner` (a placeholder: a run, or its component's work queue) are
    /// due at $2.
    package static func dueCondition(owner: String) -> String { StoreReads.dueCondition(owner: owner) }

    /// Which deliveries of `owner` (a placeholder: a run, or its component's work queue) a claim by
    /// run $1 at $2 takes (`ClaimRequest`): those that are due, and also those claimed by the run for
    /// which `notInProgress` holds (a condition on their row `id`: not among the deliveries the run
    /// holds in progress).
    package static func claimCondition(owner: String, reclaimingLostWhere notInProgress: String) -> String {
        """
        owner_run = \(owner) AND ((state = \(pending) AND not_before <= $2 AND \(StoreReads.orderCondition))
        OR (state = \(claimed) AND claimed_by = $1 AND \(notInProgress)))
        """
    }

    /// The `columns` of the deliveries that match `condition`, by row id, at most `limit` (a placeholder)
    /// of them; on PostgreSQL their rows are locked, those another transaction holds skipped
    /// (``SQLDialect/lockingSkipLocked``).
    package static func dueDeliveries(
        _ columns: String, where condition: String, limit: String, _ dialect: SQLDialect
    ) -> String {
        "SELECT \(columns) FROM deliveries WHERE \(condition) ORDER BY id LIMIT \(limit)\(dialect.lockingSkipLocked)"
    }

    /// What a claim sets on each delivery it takes, for run $1 at $2: the next attempt, not yet started.
    package static let claimAssignments =
        "state = \(claimed), claimed_by = $1, attempt = attempt + 1, claimed_at = $2"

    /// Claims up to $3 of the deliveries `request` takes at $2 (those of owner $4 that are due, and
    /// with `reclaimingLost` ``claimCondition(owner:reclaimingLostWhere:)``, the ids of its
    /// deliveries in progress written as literals), next attempt, not started, while run $1 is
    /// recorded, and returns them with their bodies and their consumers' modes (NULL when gone).
    ///
    /// The condition is checked again on each row the update changes: on PostgreSQL, a claim that
    /// waited for another's row lock sees the row as the other left it (claimed), and leaves it.
    package static func claim(_ request: ClaimRequest, now: Double) -> SQLStatement {
        let inProgress = request.inProgress.sorted().map(String.init).joined(separator: ", ")
        let condition =
            !request.reclaimingLost
            ? StoreReads.dueCondition(owner: "$4", timeUnindexed: true)
            : claimCondition(
                owner: "$4", reclaimingLostWhere: inProgress.isEmpty ? "1 = 1" : "id NOT IN (\(inProgress))")
        return SQLStatement(
            """
            UPDATE deliveries SET \(claimAssignments), started = 0
            WHERE id IN (\(dueDeliveries("id", where: condition, limit: "$3", .sqlite)))
            AND (\(condition)) AND EXISTS (SELECT 1 FROM runs WHERE run_id = $1)
            RETURNING id, delivery_key, consumer_id, signal_id, revision, attempt, crashed,
                (SELECT handler FROM delivery_bodies WHERE delivery_id = deliveries.id) AS handler,
                (SELECT payload FROM delivery_bodies WHERE delivery_id = deliveries.id) AS payload,
                (SELECT mode FROM consumers WHERE consumers.consumer_id = deliveries.consumer_id) AS mode
            """, [.init(request.runID), .init(now), .init(request.limit), .init(request.owner)], answer: .nothing)
    }

    /// Parks claimed delivery $2 (its row id), which cannot be read, as dead with reason $1.
    package static func parkUnreadable(_ delivery: Int64, reason: String) -> SQLStatement {
        SQLStatement(
            "UPDATE deliveries SET state = \(dead), claimed_by = NULL, last_error = $1 WHERE id = $2",
            [.init(reason), .init(delivery)])
    }

    // MARK: Starting and completing

    /// The delivery whose row id is `row` is still claimed by run `run` with attempt `attempt` (each a
    /// placeholder): what every change of a claimed delivery checks, so that a late process never
    /// changes an attempt that is no longer its own.
    package static func claimHeld(row: String, run: String, attempt: String) -> String {
        "id = \(row) AND state = \(claimed) AND claimed_by = \(run) AND attempt = \(attempt)"
    }

    /// Marks the attempt of a claimed delivery started (``claimHeld(row:run:attempt:)`` with the same
    /// placeholders), while its run is recorded.
    package static func startSQL(row: String, run: String, attempt: String) -> String {
        """
        UPDATE deliveries SET started = 1 WHERE \(claimHeld(row: row, run: run, attempt: attempt))
        AND EXISTS (SELECT 1 FROM runs WHERE run_id = \(run))
        """
    }

    /// Marks the attempt `attempt` of the delivery in row `row` started while run `run` holds its
    /// claim and is recorded (`StoreStep.startAttempt(row:run:attempt:)`): $1 the row id, $2 the run,
    /// $3 the attempt.
    package static func start(row: Int64, run: String, attempt: Int) -> SQLStatement {
        SQLStatement(startSQL(row: "$1", run: "$2", attempt: "$3"), [.init(row), .init(run), .init(attempt)])
    }

    /// Removes a completed delivery while its claim holds: $1 its row id, $2 its run, $3 its attempt.
    package static let completeSQL = "DELETE FROM deliveries WHERE \(claimHeld(row: "$1", run: "$2", attempt: "$3"))"

    /// Removes the delivery in row `row` while run `run` holds its claim with `attempt`
    /// (``completeSQL``); one change when it was completed.
    package static func complete(row: Int64, run: String, attempt: Int) -> SQLStatement {
        SQLStatement(completeSQL, [.init(row), .init(run), .init(attempt)])
    }

    /// Removes the body of delivery $1 (its row id); counts nothing.
    package static func removeBody(_ delivery: Int64) -> SQLStatement {
        SQLStatement("DELETE FROM delivery_bodies WHERE delivery_id = $1", [.init(delivery)], answer: .nothing)
    }

    /// Records `delivery`'s completion at `now` in the history (`completions(of:)`).
    package static func recordCompletion(_ delivery: ClaimedDelivery, now: Double) -> SQLStatement {
        SQLStatement(
            """
            INSERT INTO completions (delivery_key, consumer_id, signal_id, revision, run_id, attempt, completed_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            """,
            [
                .init(delivery.key.rawValue), .init(delivery.consumerID.rawValue), .init(delivery.signalID),
                .init(delivery.revision), .init(delivery.runID), .init(delivery.attempt), .init(now),
            ])
    }

    /// Removes the record of signal $1 when it is not kept at $2 and no consumer is left for it.
    package static func removeUnusedSignal(_ signalID: String, now: Double) -> SQLStatement {
        SQLStatement(
            """
            DELETE FROM signals WHERE signal_id = $1 AND (keep_until IS NULL OR keep_until < $2)
            AND NOT EXISTS (SELECT 1 FROM consumers WHERE signal_id = $1)
            """, [.init(signalID), .init(now)])
    }
}

/// The delivery states as the statements write them.
private let pending = DeliveryState.pending.sqlLiteral
private let claimed = DeliveryState.claimed.sqlLiteral
private let dead = DeliveryState.dead.sqlLiteral
