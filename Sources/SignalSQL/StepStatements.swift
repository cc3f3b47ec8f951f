@_spi(SignalStoreDriver) import HandlerKitSignals

/// The SQL of every ``StoreStep``, once for every SQL store: a store runs a step's statements in
/// order, in the transaction of its plan, and counts what their answers say (``SQLStatement/Answer``).
///
/// The statements run one after the other, so each sees what the previous ones changed (a
/// PostgreSQL `WITH` of several changes would not). What a delivery's state is written as comes from
/// the core's own values (``DeliveryState``, ``ConsumerLifetime``), never typed here.
package enum StepStatements {
    /// The statements of `step`; `history` is how long the store keeps completions, in seconds.
    package static func statements(for step: StoreStep, history: Double) -> [SQLStatement] {
        switch step {
        case .interruptClaims(let run, let attempts):
            // A started attempt counts (dead at the maximum, else pending from the retry time); an
            // attempt never started does not.
            [
                SQLStatement(
                    """
                    UPDATE deliveries SET claimed_by = NULL, started = 0, crashed = 1, last_error = $3 || attempt,
                        state = CASE WHEN attempt >= $2 THEN \(dead) ELSE \(pending) END,
                        not_before = CASE WHEN attempt >= $2 THEN not_before ELSE $4 END
                    WHERE claimed_by = $1 AND state = \(claimed) AND started = 1 RETURNING id
                    """,
                    [.init(run), .init(attempts.maximumAttempts), .init(attempts.reason), .init(attempts.retryAt)],
                    answer: .ids),
                SQLStatement(
                    """
                    UPDATE deliveries SET claimed_by = NULL, state = \(pending), attempt = attempt - 1
                    WHERE claimed_by = $1 AND state = \(claimed) RETURNING id
                    """, [.init(run)], answer: .ids),
            ]
        case .giveBackClaims(let run, let keeping):
            [
                SQLStatement(
                    """
                    UPDATE deliveries SET claimed_by = NULL, state = \(pending), attempt = attempt - 1, started = 0
                    WHERE claimed_by = $1 AND state = \(claimed)\(excluding(keeping)) RETURNING id
                    """, [.init(run)], answer: .ids, textVaries: !keeping.isEmpty)
            ]
        case .removeRunTiedDeliveries(let run):
            removingDeliveries(where: "owner_run = $1 AND lifetime = \(runTied) AND state <> \(dead)", [.init(run)])
        case .removeRunTiedConsumers(let run):
            [SQLStatement("DELETE FROM consumers WHERE run_id = $1 AND lifetime = \(runTied)", [.init(run)])]
        case .moveConsumers(let run, let taker):
            [SQLStatement("UPDATE consumers SET run_id = $2 WHERE run_id = $1", [.init(run), .init(taker)])]
        case .moveDeliveries(let run, let taker):
            [SQLStatement("UPDATE deliveries SET owner_run = $2 WHERE owner_run = $1", [.init(run), .init(taker)])]
        case .moveConsumer(let id, let run):
            [SQLStatement("UPDATE consumers SET run_id = $2 WHERE consumer_id = $1", [.init(id), .init(run)])]
        case .movePendingDeliveries(let consumer, let run):
            [
                SQLStatement(
                    """
                    UPDATE deliveries SET owner_run = $2 WHERE consumer_id = $1 AND state = \(pending)
                    AND EXISTS (SELECT 1 FROM consumers WHERE consumer_id = $1)
                    """, [.init(consumer), .init(run)])
            ]
        case .removeRun(let run):
            [SQLStatement("DELETE FROM runs WHERE run_id = $1", [.init(run)])]
        case .removePendingDeliveries(let consumer):
            removingDeliveries(where: "consumer_id = $1 AND state = \(pending)", [.init(consumer)])
        case .removeConsumer(let id):
            [SQLStatement("DELETE FROM consumers WHERE consumer_id = $1", [.init(id)])]
        case .removeUnusedSignals(let now):
            [
                SQLStatement(
                    """
                    DELETE FROM signals WHERE (keep_until IS NULL OR keep_until < $1)
                    AND NOT EXISTS (SELECT 1 FROM consumers WHERE consumers.signal_id = signals.signal_id)
                    """, [.init(now)])
            ]
        case .takePostKey(let key, let now, let keepUntil):
            [
                SQLStatement(
                    """
                    INSERT INTO post_keys (post_key, answer, keep_until) VALUES ($1, '', $3)
                    ON CONFLICT (post_key) DO UPDATE SET answer = '', keep_until = excluded.keep_until
                    WHERE post_keys.keep_until < $2
                    """, [.init(key), .init(now), .init(keepUntil)])
            ]
        case .recordPostKey(let key, let answer):
            [SQLStatement("UPDATE post_keys SET answer = $2 WHERE post_key = $1", [.init(key), .init(answer)])]
        case .forgetPostKeys(let now):
            [SQLStatement("DELETE FROM post_keys WHERE keep_until < $1", [.init(now)])]
        case .forgetCompletions(let now):
            [SQLStatement("DELETE FROM completions WHERE completed_at < $1", [.init(now - history)])]
        case .insertConsumer(let consumer, let now):
            [
                SQLStatement(
                    """
                    INSERT INTO consumers (consumer_id, signal_id, component, run_id, lifetime, mode, handler, handler_id,
                                           created_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (consumer_id) DO NOTHING
                    """,
                    [
                        .init(consumer.id.rawValue), .init(consumer.signalID), .init(consumer.component),
                        .init(consumer.runID), .init(consumer.lifetime.rawValue), .init(consumer.mode.rawValue),
                        .init(consumer.handler), .init(consumer.handlerID), .init(now),
                    ])
            ]
        case .deliverKeptRevision(let consumer, let now):
            deliveringKeptRevision(to: consumer, now: now)
        case .markServedWhenDelivered(let consumer):
            [
                SQLStatement(
                    """
                    UPDATE consumers SET delivered = 1
                    WHERE consumer_id = $1 AND EXISTS (SELECT 1 FROM deliveries WHERE consumer_id = $1)
                    """, [.init(consumer)])
            ]
        case .removeDelivery(let key):
            removingDeliveries(where: "delivery_key = $1 AND state <> \(claimed)", [.init(key)])
        case .removeCompletions(let key, let before):
            [
                SQLStatement(
                    """
                    DELETE FROM completions WHERE (CAST($1 AS TEXT) IS NULL OR delivery_key = $1) AND completed_at < $2
                    """, [.init(key), .init(before)])
            ]
        case .removePromises(let now):
            [SQLStatement("DELETE FROM promises WHERE keep_until < $1", [.init(now)])]
        case .requeueDead(let key, let now):
            [
                SQLStatement(
                    """
                    UPDATE deliveries SET state = \(pending), attempt = 0, not_before = $2, last_error = NULL,
                        started = 0, crashed = 0
                    WHERE delivery_key = $1 AND state = \(dead)
                    """, [.init(key), .init(now)])
            ]
        case .startAttempt(let row, let run, let attempt):
            [HotPathStatements.start(row: row, run: run, attempt: attempt)]
        case .insertPromise(let promise):
            [PromiseStatements.insert(promise)]
        case .removeClaimed(let row, let run, let attempt):
            [HotPathStatements.complete(row: row, run: run, attempt: attempt)]
        case .removeBody(let row):
            [HotPathStatements.removeBody(row)]
        case .recordCompletion(let delivery, let now):
            [HotPathStatements.recordCompletion(delivery, now: now)]
        case .insertDelivery(let consumer, let revision, let payload, let now, let due, let orderKey):
            HotPathStatements.insertDelivery(
                consumer: consumer, revision: revision, payload: payload, now: now, due: due, orderKey: orderKey)
        case .insertDeliveries(let made, let now):
            HotPathStatements.insertDeliveries(made, now: now)
        case .debounceDelivery(let delivery, let now):
            DebounceStatements.statements(delivery, now: now)
        case .markServed(let consumer):
            [HotPathStatements.markServed(consumer)]
        case .keepSignal(let signal, let revision, let payload, let now, let keepUntil, let notBefore):
            [
                HotPathStatements.keepSignal(
                    signal, revision: revision, payload: payload, now: now, keepUntil: keepUntil, notBefore: notBefore)
            ]
        case .removeSignal(let signal):
            [HotPathStatements.removeSignal(signal)]
        case .settlePromise(let promise, let settlement):
            [PromiseStatements.settle(promise, with: settlement)]
        case .removeSignalIfUnused(let signal, let now):
            [HotPathStatements.removeUnusedSignal(signal, now: now)]
        case .parkUnreadable(let row, let reason):
            [HotPathStatements.parkUnreadable(row, reason: reason)]
        case .releaseClaim(let release):
            [
                SQLStatement(
                    releaseClaimSQL,
                    [
                        .init(release.rowID), .init(release.run), .init(release.attempt),
                        .init(release.state.rawValue), .init(release.reason), .init(release.dueAt),
                    ])
            ]
        }
    }

    /// ``StoreStep/releaseClaim(_:)``'s statement: $1 the row id, $2 the run and $3 the attempt that
    /// must still hold its claim, $4 the state it becomes, $5 its last error, $6 when it is due again
    /// (NULL: as it was). A store may prepare it once: it is on the path of every failed attempt.
    package static let releaseClaimSQL = """
        UPDATE deliveries SET state = $4, claimed_by = NULL, last_error = $5, not_before = COALESCE($6, not_before),
            started = 0, crashed = 0
        WHERE \(HotPathStatements.claimHeld(row: "$1", run: "$2", attempt: "$3"))
        """

    /// Removes the deliveries that match `condition`, their bodies first; counts the deliveries.
    private static func removingDeliveries(where condition: String, _ arguments: [SQLValue]) -> [SQLStatement] {
        [
            SQLStatement(
                "DELETE FROM delivery_bodies WHERE delivery_id IN (SELECT id FROM deliveries WHERE \(condition))",
                arguments, answer: .nothing),
            SQLStatement("DELETE FROM deliveries WHERE \(condition)", arguments),
        ]
    }

    /// One pending delivery of the kept revision of `consumer`'s signal, when it is kept at `now`,
    /// due at `now` or at the record's `not_before` when later, and its body (the consumer's
    /// handler, the record's payload); counts the delivery.
    private static func deliveringKeptRevision(to consumer: ConsumerRecord, now: Double) -> [SQLStatement] {
        let key = DeliveryKey.sql(consumer: "$1", revision: "signals.revision")
        return [
            SQLStatement(
                """
                INSERT INTO deliveries (delivery_key, consumer_id, signal_id, revision, component, owner_run, lifetime,
                                        handler_id, state, attempt, not_before, created_at)
                SELECT \(key), $1, signal_id, revision, $3, $4, $5, $6, \(pending), 0,
                       CASE WHEN not_before > $7 THEN not_before ELSE $7 END, $7
                FROM signals WHERE signal_id = $2 AND keep_until >= $7
                """,
                [
                    .init(consumer.id.rawValue), .init(consumer.signalID), .init(consumer.component),
                    .init(consumer.runID), .init(consumer.lifetime.rawValue), .init(consumer.handlerID), .init(now),
                ]),
            SQLStatement(
                """
                INSERT INTO delivery_bodies (delivery_id, handler, payload)
                SELECT deliveries.id, $3, signals.payload FROM signals JOIN deliveries ON deliveries.delivery_key = \(key)
                WHERE signals.signal_id = $2 AND signals.keep_until >= $4
                """,
                [.init(consumer.id.rawValue), .init(consumer.signalID), .init(consumer.handler), .init(now)],
                answer: .nothing),
        ]
    }

    /// ` AND id NOT IN (…)` for the row ids in `ids` (integers, written as literals), or nothing.
    private static func excluding(_ ids: [Int64]) -> String {
        ids.isEmpty ? "" : " AND id NOT IN (\(ids.map(String.init).joined(separator: ", ")))"
    }
}

/// The delivery states and the run-tied lifetime as the statements write them.
private let pending = DeliveryState.pending.sqlLiteral
private let claimed = DeliveryState.claimed.sqlLiteral
private let dead = DeliveryState.dead.sqlLiteral
private let runTied = ConsumerLifetime.run.sqlLiteral
