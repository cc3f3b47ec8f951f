// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import PostgresNIO
import SignalSQL

/// The statements run for every signal (post, claim, start, complete, release, a run's status), prepared once per
/// connection by postgres-nio and then only bound and executed: planning these statements anew each
/// time cost the server more than running them.
///
/// Their SQL is static (postgres-nio names a prepared statement after its type), so it names the
/// store's tables without their schema: every connection of a store has the store's schema as its
/// `search_path` (`PostgresConnections.connect`). Each statement's parameter types are given, so
/// its preparation never depends on the values (a NULL first) it was first bound with.
///
/// A statement whose preparation failed stays failed on that connection (postgres-nio keeps the
/// error), so `PostgresConnections.run` closes a connection on which a statement failed.
enum PostgresStatements {
    /// The session setting every connection running these statements has: sequential scans only
    /// where no index serves (`enable_seqscan = off`).
    ///
    /// PostgreSQL keeps a prepared statement's generic plan until the tables it reads are analyzed
    /// again. A plan made while the store's tables were empty, or analyzed while empty (a new store),
    /// reads them whole: cheapest for an empty table, and the same plan a minute later reads every
    /// row of a queue that has grown meanwhile. Every statement here finds its rows through an
    /// index, so the setting gives each statement the plan it has on a large table from the first
    /// execution, and costs nothing per execution (forcing a plan per execution,
    /// `plan_cache_mode = force_custom_plan`, halved the throughput).
    static let planSetting = (name: "enable_seqscan", value: "off")

    /// A post (one statement): the signal's record (its revision serialises posts of the same
    /// signal), a delivery (with the post's ordering key $10) and its body per consumer that takes it,
    /// once consumers marked, a NOTIFY
    /// per run that receives a delivery (its id as payload), and the post's id with its result (so
    /// a try after a lost connection can tell it was applied; not when the id is NULL, inside a
    /// transaction that records its own). Returns the revision, the number of deliveries and of
    /// notifications.
    ///
    /// The post's rules are the core's `Posting`, as SQL: the revision after the record's, which
    /// consumers receive it and which it serves, and whether the record is stored; the payload the
    /// record keeps is bound (`Posting.keptPayload`).
    ///
    /// It stands for the statements SQLite runs one by one, around `Posting.decide` (PostgreSQL runs
    /// it in one round trip): `HotPathStatements.signalRevision` and `.signalConsumers` (the rows
    /// locked), then per delivery `.insertDelivery`, `.insertBody` and, for a consumer it serves,
    /// `.markServed`, and `.keepSignal` or `.removeSignal`. The differential tests compare both.
    struct Post: PostgresPreparedStatement {
        static let sql = """
            WITH prev AS (SELECT revision FROM signals WHERE signal_id = $1 FOR UPDATE),
            has AS (SELECT EXISTS (SELECT 1 FROM consumers WHERE signal_id = $1) AS found),
            gone AS (DELETE FROM signals WHERE signal_id = $1 AND NOT \(keepsRecord)),
            sig AS (INSERT INTO signals AS x (signal_id, revision, payload, posted_at, keep_until, not_before)
                    SELECT $1, \(Posting.revisionSQL(after: "(SELECT revision FROM prev)")), $3, $4, $2, $9
                    WHERE \(keepsRecord)
                    ON CONFLICT (signal_id) DO UPDATE SET revision = \(Posting.revisionSQL(after: "x.revision")),
                        payload = excluded.payload, posted_at = excluded.posted_at, keep_until = excluded.keep_until,
                        not_before = excluded.not_before
                    RETURNING revision),
            c AS (SELECT consumer_id, component, run_id, lifetime, mode, handler, handler_id, created_at
                  FROM consumers WHERE signal_id = $1 AND \(Posting.receivesSQL(mode: "mode", served: "delivered"))
                  FOR UPDATE),
            d AS (INSERT INTO deliveries (delivery_key, consumer_id, signal_id, revision, component, owner_run,
                                          lifetime, handler_id, state, attempt, not_before, created_at, order_key)
                  SELECT \(DeliveryKey.sql(consumer: "c.consumer_id", revision: "sig.revision")), c.consumer_id, $1,
                         sig.revision, c.component, c.run_id, c.lifetime, c.handler_id, \(pending), 0, $8, $4, $10
                  FROM c, sig ORDER BY c.created_at, c.consumer_id
                  RETURNING id, consumer_id),
            b AS (INSERT INTO delivery_bodies (delivery_id, handler, payload)
                  SELECT d.id, c.handler, $5 FROM d JOIN c USING (consumer_id)),
            u AS (UPDATE consumers SET delivered = 1
                  WHERE consumer_id IN (SELECT consumer_id FROM c WHERE \(Posting.servesSQL(mode: "mode")))),
            n AS (SELECT pg_notify($6, owner) FROM (SELECT DISTINCT c.run_id AS owner FROM c JOIN d USING (consumer_id)) o),
            r AS (SELECT COALESCE((SELECT revision FROM sig), \(Posting.revisionSQL(after: "(SELECT revision FROM prev)")))
                         AS revision,
                         (SELECT count(*) FROM d) AS deliveries),
            p AS (INSERT INTO operations (operation_id, answer, done_at)
                  SELECT $7, r.revision || ' ' || r.deliveries, $4 FROM r WHERE $7::text IS NOT NULL
                  ON CONFLICT (operation_id) DO UPDATE SET answer = excluded.answer)
            SELECT r.revision::bigint, r.deliveries::bigint, (SELECT count(*) FROM n)::bigint FROM r
            """
        static let bindingDataTypes: [PostgresDataType] = [
            .text, .float8, .bytea, .float8, .bytea, .text, .text, .float8, .float8, .text,
        ]
        typealias Row = (Int, Int, Int)
        /// Whether the signal's record is stored (`Posting.keepsRecord(hasConsumer:)`).
        private static let keepsRecord = Posting.keepsRecordSQL(
            hasConsumer: "(SELECT found FROM has)", keepUntil: "$2::float8")

        var signalID: String
        /// Until when the signal is kept for late consumers (seconds since 1970), or nil.
        var keepUntil: Double?
        /// The payload kept in the signal's record (empty when not kept).
        var storedPayload: ByteBuffer
        var now: Double
        var payload: ByteBuffer
        var channel: String
        /// The post's id, made before sending; `nil` when the transaction it runs in is recorded
        /// otherwise (a bulk post) or may run again (a settlement).
        var postID: String?
        /// When its deliveries are due (`Posting.due(now:)`).
        var due: Double
        /// The time before which the signal's record is not delivered to a later consumer, or nil.
        var notBefore: Double?
        /// The ordering key of the post's deliveries, or nil.
        var orderKey: String?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 10)
            bindings.append(signalID)
            bindings.append(keepUntil)
            bindings.append(storedPayload)
            bindings.append(now)
            bindings.append(payload)
            bindings.append(channel)
            bindings.append(postID)
            bindings.append(due)
            bindings.append(notBefore)
            bindings.append(orderKey)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((Int, Int, Int).self) }
    }

    /// Claims up to `limit` of the due deliveries of `owner` (the run, or its component's work queue)
    /// for a run (next attempt) and returns them with their
    /// bodies (nil when the body is missing), as `HotPathStatements.claim` does for the core's claim
    /// program, leaving the deliveries in progress in this process alone.
    struct Claim: ClaimStatement {
        static let sql = """
            WITH \(dueRows),
            \(PostgresStatements.claimAndRead)
            """
        /// Owner $6's deliveries due at $2, the first $4 of them by id, locked (`due`).
        static let dueRows = """
            due AS (\(HotPathStatements.dueDeliveries(
                "id, crashed", where: HotPathStatements.dueCondition(owner: "$6"), limit: "$4", .postgres)))
            """

        var runID: String
        var owner: String
        var now: Double
        var running: [Int64]
        var limit: Int
        var marks: Int
    }

    /// `Claim`, and also the run's claims that no delivery in progress holds (claimed by a statement
    /// whose answer was lost with its connection): claimed again, next attempt. Used after a claim
    /// failed, since looking for them costs every claim a scan of the run's claimed entries.
    struct ClaimWithLostClaims: ClaimStatement {
        static let sql = """
            WITH due AS (\(HotPathStatements.dueDeliveries("id, crashed", where: dueOrLost, limit: "$4", .postgres))),
            \(PostgresStatements.claimAndRead)
            """
        /// Owner $6's deliveries due at $2, or run $1's claims except those in progress ($3, a `bigint[]`).
        private static let dueOrLost = HotPathStatements.claimCondition(
            owner: "$6", reclaimingLostWhere: "NOT (id = ANY($3))")

        var runID: String
        var owner: String
        var now: Double
        var running: [Int64]
        var limit: Int
        var marks: Int
    }

    /// What both claim statements do with the deliveries `due` selects. The $5 deliveries that run
    /// first (`ClaimedDelivery.runningOrder`: by id, those whose previous attempt crashed last) are
    /// marked started as `HotPathStatements.start` does, while the run is recorded. Each row also says whether it
    /// was marked and whether the run is recorded.
    static let claimAndRead = claimChanges + "\n" + claimedRows

    /// The changes of ``claimAndRead``: `r`, `h` and `c`, the claimed rows.
    static let claimChanges = """
        r AS (SELECT EXISTS (SELECT 1 FROM runs WHERE run_id = $1) AS recorded),
        h AS (SELECT id FROM due WHERE (SELECT recorded FROM r) ORDER BY crashed, id LIMIT $5),
        c AS (UPDATE deliveries d SET \(HotPathStatements.claimAssignments),
                     started = CASE WHEN d.id IN (SELECT id FROM h) THEN 1 ELSE 0 END
              FROM due WHERE d.id = due.id
              RETURNING d.id, d.delivery_key, d.consumer_id, d.signal_id, d.revision, d.attempt, d.crashed, d.started)
        """

    /// What ``claimAndRead`` returns of the rows `c` claimed.
    static let claimedRows = """
        SELECT c.id, c.delivery_key, c.consumer_id, c.signal_id, c.revision::bigint, c.attempt::bigint, b.handler, b.payload,
               o.mode, c.crashed <> 0, c.started <> 0, (SELECT recorded FROM r)
        FROM c LEFT JOIN delivery_bodies b ON b.delivery_id = c.id LEFT JOIN consumers o ON o.consumer_id = c.consumer_id
        ORDER BY c.id
        """

    /// Completes a group of deliveries (row ids $1, each claimed by run $2 with attempt $3, ending its
    /// consumer when $4), as `Complete` completes one: each only while its run and attempt still
    /// hold its claim. Returns the row ids completed.
    ///
    /// It stands for the core's group of completions (`StoreProgram.completeGroup`), one `Complete`
    /// after the other, in one round trip. The conformance checks run both.
    struct CompleteGroup: PostgresPreparedStatement {
        static let sql = """
            WITH \(changes(rows: "$1", runs: "$2", attempts: "$3", ending: "$4", now: "$5"))
            SELECT id FROM done
            """

        /// The group's changes, with its arrays and time at the placeholders given: `done` holds the
        /// deliveries completed.
        static func changes(rows: String, runs: String, attempts: String, ending: String, now: String) -> String {
            """
            g AS (SELECT * FROM unnest(\(rows)::bigint[], \(runs)::text[], \(attempts)::bigint[], \(ending)::boolean[])
                  AS g(gid, grun, gattempt, gending)),
            done AS (DELETE FROM deliveries USING g
                     WHERE \(HotPathStatements.claimHeld(row: "g.gid", run: "g.grun", attempt: "g.gattempt"))
                     RETURNING id, delivery_key, consumer_id, signal_id, revision, g.grun, g.gattempt, g.gending),
            done_bodies AS (DELETE FROM delivery_bodies WHERE delivery_id IN (SELECT id FROM done)),
            done_history AS (INSERT INTO completions (delivery_key, consumer_id, signal_id, revision, run_id, attempt,
                                                      completed_at)
                             SELECT delivery_key, consumer_id, signal_id, revision, grun, gattempt, \(now) FROM done),
            ended AS (DELETE FROM consumers WHERE consumer_id IN (SELECT consumer_id FROM done WHERE gending)
                      RETURNING consumer_id, signal_id),
            unused AS (DELETE FROM signals s WHERE s.signal_id IN (SELECT signal_id FROM ended)
                       AND (s.keep_until IS NULL OR s.keep_until < \(now))
                       AND NOT EXISTS (SELECT 1 FROM consumers o WHERE o.signal_id = s.signal_id
                                       AND o.consumer_id NOT IN (SELECT consumer_id FROM ended)))
            """
        }
        static let bindingDataTypes: [PostgresDataType] = [.int8Array, .textArray, .int8Array, .boolArray, .float8]
        typealias Row = Int64

        var rowIDs: [Int64]
        var runIDs: [String]
        var attempts: [Int]
        var endingConsumers: [Bool]
        var now: Double

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 5)
            bindings.append(rowIDs)
            bindings.append(runIDs)
            bindings.append(attempts)
            bindings.append(endingConsumers)
            bindings.append(now)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int64.self) }
    }

    /// `CompleteGroup` (arrays $7 to $10, at $2), then `Claim` (its parameters), in one statement
    /// and one round trip: the rows claimed as `Claim` returns them, then one row per delivery
    /// completed with only its id (its key NULL). The group's rows are claimed and the claim's are
    /// pending, so neither part changes a row the other reads.
    ///
    /// It stands for the core's group of completions with the next claim
    /// (`StoreProgram.completeGroup(_:thenClaiming:now:)`), as the two statements do one after the
    /// other. The conformance checks run both.
    struct CompleteGroupThenClaim: PostgresPreparedStatement {
        static let sql = """
            WITH \(CompleteGroup.changes(rows: "$7", runs: "$8", attempts: "$9", ending: "$10", now: "$2")),
            \(Claim.dueRows),
            \(claimChanges)
            (\(claimedRows))
            UNION ALL
            SELECT id, NULL::text, NULL::text, NULL::text, NULL::bigint, NULL::bigint, NULL::bytea, NULL::bytea,
                   NULL::text, NULL::boolean, NULL::boolean, NULL::boolean FROM done
            """
        static let bindingDataTypes: [PostgresDataType] =
            [.text, .float8, .int8Array, .int8, .int8, .text, .int8Array, .textArray, .int8Array, .boolArray]
        typealias Row = (Int64, String?, String?, String?, Int?, Int?, Data?, Data?, String?, Bool?, Bool?, Bool?)

        var claim: Claim
        var group: CompleteGroup

        func makeBindings() throws -> PostgresBindings {
            var bindings = try claim.makeBindings()
            bindings.append(group.rowIDs)
            bindings.append(group.runIDs)
            bindings.append(group.attempts)
            bindings.append(group.endingConsumers)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row {
            try row.decode(
                (Int64, String?, String?, String?, Int?, Int?, Data?, Data?, String?, Bool?, Bool?, Bool?).self)
        }
    }

    /// Completes a delivery if it is still claimed by the run and attempt that ran it: removes it
    /// and its body, records the completion, and when told to end its consumer ($5), removes the
    /// consumer and its signal when nothing else uses it. With a next delivery ($6, attempt $7),
    /// marks it started as `HotPathStatements.start` does. Returns 1 when completed, else 0; whether the run is
    /// recorded; and 1 when the next delivery was marked, else 0.
    ///
    /// It stands for the statements SQLite runs one by one, in one round trip:
    /// `HotPathStatements.complete`, then (when it completed) `.removeBody` and `.recordCompletion`,
    /// with `$5` `.removeConsumer` and `.removeUnusedSignal`, and for the next delivery `.start`. The
    /// differential tests compare both.
    struct Complete: PostgresPreparedStatement {
        static let sql = """
            WITH d AS (\(HotPathStatements.completeSQL)
                       RETURNING id, delivery_key, consumer_id, signal_id, revision),
            b AS (DELETE FROM delivery_bodies WHERE delivery_id IN (SELECT id FROM d)),
            h AS (INSERT INTO completions (delivery_key, consumer_id, signal_id, revision, run_id, attempt, completed_at)
                  SELECT delivery_key, consumer_id, signal_id, revision, $2, $3, $4 FROM d),
            k AS (DELETE FROM consumers WHERE consumer_id IN (SELECT consumer_id FROM d) AND $5
                  RETURNING consumer_id, signal_id),
            x AS (DELETE FROM signals g WHERE g.signal_id IN (SELECT signal_id FROM k)
                  AND (g.keep_until IS NULL OR g.keep_until < $4)
                  AND NOT EXISTS (SELECT 1 FROM consumers o
                                  WHERE o.signal_id = g.signal_id AND o.consumer_id NOT IN (SELECT consumer_id FROM k))),
            r AS (SELECT EXISTS (SELECT 1 FROM runs WHERE run_id = $2) AS recorded),
            s AS (\(HotPathStatements.startSQL(row: "$6", run: "$2", attempt: "$7")) RETURNING 1)
            SELECT (SELECT count(*) FROM d), (SELECT recorded FROM r), (SELECT count(*) FROM s)
            """
        static let bindingDataTypes: [PostgresDataType] = [.int8, .text, .int8, .float8, .bool, .int8, .int8]
        typealias Row = (Int, Bool, Int)

        var rowID: Int64
        var runID: String
        var attempt: Int
        var now: Double
        var endingConsumer: Bool
        var nextRowID: Int64?
        var nextAttempt: Int?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 7)
            bindings.append(rowID)
            bindings.append(runID)
            bindings.append(attempt)
            bindings.append(now)
            bindings.append(endingConsumer)
            bindings.append(nextRowID)
            bindings.append(nextAttempt)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode((Int, Bool, Int).self) }
    }

    /// Releases a claimed delivery as the core decided (`StoreStep.releaseClaim`): the SQL stores'
    /// own statement (`StepStatements.releaseClaimSQL`), prepared, counting the rows it changed
    /// (1 when released, 0 when the claim was lost).
    struct Release: PostgresPreparedStatement {
        static let sql = counting(StepStatements.releaseClaimSQL)
        static let bindingDataTypes: [PostgresDataType] = [.int8, .text, .int8, .text, .text, .float8]
        typealias Row = Int

        /// The statement's arguments, in the order of its placeholders.
        var arguments: [SQLValue]

        func makeBindings() throws -> PostgresBindings { arguments.bindings }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Int.self) }
    }

    /// `sql` (an `INSERT`, `UPDATE` or `DELETE`) as a statement that answers with the number of rows
    /// it changed: postgres-nio's rows do not carry the command's tag, which says it.
    /// Takes a write's operation id ($1, at $2) for a try after a lost connection (counted with
    /// `counting`: 1 when taken, 0 when an earlier try recorded it). While the earlier try's
    /// transaction is open on the server, it waits for it.
    static let takeOperation = """
        INSERT INTO operations (operation_id, answer, done_at) VALUES ($1, '', $2)
        ON CONFLICT (operation_id) DO NOTHING
        """

    /// Locks the records of signals $1 (text[]) against other posts until the transaction ends,
    /// making the missing ones, in the order of their ids. A record made here has revision 0, which
    /// a post reads as no record (`Posting.revision(after:)`), and every bulk post of the signal
    /// then stores or removes it (`Posting.write(_:after:now:)`), so it is never committed.
    static let lockSignals = """
        INSERT INTO signals (signal_id, revision, payload, posted_at)
        SELECT id, 0, '', 0 FROM unnest($1::text[]) AS id ORDER BY id
        ON CONFLICT (signal_id) DO UPDATE SET revision = signals.revision
        """

    /// The answer recorded with operation id $1.
    static let operationAnswer = "SELECT answer FROM operations WHERE operation_id = $1"

    /// Records operation id $1 with its answer $2, at $3 (`PostgresSignalStore.transactionOnce`).
    static let recordOperation = """
        INSERT INTO operations (operation_id, answer, done_at) VALUES ($1, $2, $3)
        ON CONFLICT (operation_id) DO UPDATE SET answer = excluded.answer
        """

    /// Forgets the operation ids recorded before $1.
    static let forgetOperations = "DELETE FROM operations WHERE done_at < $1"

    static func counting(_ sql: String) -> String {
        "WITH changed AS (\(sql) RETURNING 1) SELECT count(*) FROM changed"
    }
}

/// A claim statement: for a run, at a time, leaving the deliveries in progress in this process alone.
protocol ClaimStatement: PostgresPreparedStatement
where Row == (Int64, String, String, String, Int, Int, Data?, Data?, String?, Bool, Bool, Bool) {
    var runID: String { get }
    /// Whose due deliveries are claimed: the run's, or its component's work queue's.
    var owner: String { get }
    var now: Double { get }
    /// The run's deliveries in progress in this process (never claimed again).
    var running: [Int64] { get }
    var limit: Int { get }
    /// How many of the claimed deliveries are marked started, those that run first: 0, 1 or all.
    var marks: Int { get }
    init(runID: String, owner: String, now: Double, running: [Int64], limit: Int, marks: Int)
}

extension ClaimStatement {
    /// The statement that claims what `request` asks at `now`: the first delivery marked started, or
    /// with `ClaimRequest.startingAll` every one.
    init(_ request: ClaimRequest, now: Double) {
        self.init(
            runID: request.runID, owner: request.owner, now: now, running: request.inProgress.sorted(),
            limit: request.limit, marks: request.startingAll ? request.limit : request.startingFirst ? 1 : 0)
    }

    static var bindingDataTypes: [PostgresDataType] { [.text, .float8, .int8Array, .int8, .int8, .text] }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 6)
        bindings.append(runID)
        bindings.append(now)
        bindings.append(running)
        bindings.append(limit)
        bindings.append(marks)
        bindings.append(owner)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode((Int64, String, String, String, Int, Int, Data?, Data?, String?, Bool, Bool, Bool).self)
    }
}
/// The delivery states as the statements write them.
private let pending = DeliveryState.pending.sqlLiteral
private let claimed = DeliveryState.claimed.sqlLiteral

extension [SQLValue] {
    /// The values bound to a statement's placeholders, in order. A NULL is sent without a type: the
    /// server infers it from where the placeholder stands (the statements cast it where that is
    /// not enough, as in `CAST($1 AS TEXT) IS NULL`).
    var bindings: PostgresBindings {
        var bindings = PostgresBindings(capacity: count)
        for value in self {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let value): bindings.append(value)
            case .real(let value): bindings.append(value)
            case .text(let value): bindings.append(value)
            case .blob(let value): bindings.append(ByteBuffer(bytes: value))
            }
        }
        return bindings
    }
}
#endif
