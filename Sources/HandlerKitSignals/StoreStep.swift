/// One primitive change to a store's tables, made inside the transaction of a `StorePlan`.
///
/// The core lists, in `StorePlan`, which steps make up each operation that changes several
/// tables, and in which order, with every value it decided. Each step is made in two places, both
/// in this package: its SQL (`SignalSQL`'s `StepStatements`, for the SQLite and PostgreSQL stores)
/// and its change of `SignalTables` (for every other store). A store outside the package never sees
/// a step: it runs a plan with `SignalTables.perform(_:)`, so a step added here changes none of its
/// code. Times are seconds since 1970.
package enum StoreStep: Sendable, Hashable {
    /// The deliveries claimed by `run` are no longer claimed. One whose attempt was started
    /// (`SignalStore.start(_:)`) keeps that attempt counted and is marked as crashed: dead with
    /// the attempts' `reason` followed by its attempt's number once its attempt reached
    /// `attempts.maximumAttempts`, else pending from `attempts.retryAt` (with that reason as its last
    /// error). One whose attempt was never started becomes pending again with that attempt not
    /// counted, due as it was. Counts them all.
    case interruptClaims(run: String, attempts: InterruptedAttempts)
    /// The deliveries claimed by `run`, except those whose row ids are in `keeping` (their handlers
    /// still run), are no longer claimed: pending again, due as they were, their attempt not counted
    /// (started or not: their handlers did not run) and not marked as crashed. Counts them.
    case giveBackClaims(run: String, keeping: [Int64])
    /// Removes the deliveries owned by `run` for its run-tied consumers that are not dead (with
    /// their bodies). Counts them.
    case removeRunTiedDeliveries(run: String)
    /// Removes the run-tied consumers of `run`. Counts them.
    case removeRunTiedConsumers(run: String)
    /// The consumers of `run` become `taker`'s. Counts them.
    case moveConsumers(of: String, to: String)
    /// The deliveries owned by `run` (dead ones included) become `taker`'s. Counts them.
    case moveDeliveries(of: String, to: String)
    /// Consumer `consumer` becomes `run`'s: `run` delivers to it. Counts it (0 or 1).
    case moveConsumer(String, to: String)
    /// When consumer `consumer` exists, its pending deliveries become `run`'s; when it does not (a
    /// dead delivery requeued can outlive its consumer), nothing changes. Counts them.
    case movePendingDeliveries(consumer: String, to: String)
    /// Removes the record of `run`. Counts it.
    case removeRun(String)
    /// Removes the pending deliveries of `consumer` (with their bodies). Counts them.
    case removePendingDeliveries(consumer: String)
    /// Removes the consumer with this id. Counts it.
    case removeConsumer(String)
    /// Removes the signal records no consumer uses that are not kept at `now` (a keep that ended
    /// before `now` no longer counts). Counts them.
    case removeUnusedSignals(now: Double)
    /// Removes the completions recorded longer ago than the store keeps its history of completions
    /// (a setting of the store), at `now`. Counts them.
    case forgetCompletions(now: Double)
    /// Takes the idempotency key `key` of a post for the post made at `now`, kept until `keepUntil`,
    /// unless a post that is still kept has it. Counts it (0 when one has it).
    case takePostKey(String, now: Double, keepUntil: Double)
    /// Records `answer` (the post's result, as text) with the idempotency key `key`. Counts it.
    case recordPostKey(String, answer: String)
    /// Removes the idempotency keys of posts kept until before `now`. Counts them.
    case forgetPostKeys(now: Double)
    /// Stores `consumer`, registered at `now`, not yet served, unless a consumer with its id exists.
    /// Counts it (0 when one existed).
    case insertConsumer(ConsumerRecord, now: Double)
    /// When the record of `consumer`'s signal is kept at `now` (its keep ends at `now` or later),
    /// makes one pending delivery of the kept revision and payload for `consumer`, owned by its run,
    /// due at `now`, with no attempt made. Counts it (0 or 1).
    case deliverKeptRevision(consumer: ConsumerRecord, now: Double)
    /// Marks consumer `consumer` served, so that no post delivers to it any more, when a delivery
    /// of it exists. Counts it (0 or 1).
    case markServedWhenDelivered(consumer: String)
    /// The dead delivery with this key becomes pending, due at `now`, with no attempt made and no
    /// last error. Counts it (0 or 1).
    case requeueDead(key: String, now: Double)
    /// Removes the delivery with this key, with its body, when it is pending or dead (a claimed one
    /// stays: its handler may be running). Counts it (0 or 1).
    case removeDelivery(key: String)
    /// Removes the completions in the history recorded before `completedBefore`, of the delivery
    /// with key `key` only when one is given. Counts them.
    case removeCompletions(key: String?, completedBefore: Double)
    /// Removes the settled durable promises whose retention ended before `now`.
    /// Counts them.
    case removePromises(keptUntilBefore: Double)
    /// When the delivery in row `release.rowID` is still claimed by `release.run` with
    /// `release.attempt`, gives it back as the core decided: in `release.state` (pending, or dead),
    /// due from `release.dueAt` when one is given (else as it was), with `release.reason` as its last
    /// error, no longer claimed, started or marked as crashed; its attempt stays counted. Counts it
    /// (0 or 1; 0 when the claim was lost).
    case releaseClaim(ClaimRelease)
    /// When run `run` is recorded and the delivery in row `row` is still claimed by it with
    /// `attempt`, marks that attempt started. Counts it (0 or 1; 0 when the run was taken over or the
    /// claim lost).
    case startAttempt(row: Int64, run: String, attempt: Int)
    /// Stores `promise` (not settled) unless a promise with its id is stored. Counts it (0 or 1).
    case insertPromise(PromiseRecord)
    /// Removes the delivery in row `row` while it is claimed by `run` with `attempt`, keeping its
    /// body (`removeBody(row:)` follows). Counts it (0 or 1; 0 when the claim was lost).
    case removeClaimed(row: Int64, run: String, attempt: Int)
    /// Removes the body of the delivery in row `row` (a store that keeps a body with its delivery
    /// has removed it with the delivery). Counts nothing.
    case removeBody(row: Int64)
    /// Records the completion of `delivery` (its run and attempt) at `now` in the history of
    /// completions. Counts it (1).
    case recordCompletion(ClaimedDelivery, now: Double)
    /// Removes the record of signal `signal` when no consumer uses it and it is not kept at `now`.
    /// Counts it (0 or 1).
    case removeSignalIfUnused(String, now: Double)
    /// Makes the delivery in row `row`, whose record a claim could not read, dead with `reason`
    /// and no longer claimed. Counts it (0 or 1).
    case parkUnreadable(row: Int64, reason: String)
    /// When consumer `consumer` exists, makes a pending delivery of revision `revision` of its
    /// signal for it, owned by its run, made at `now` and due at `due`, with no attempt made, whose
    /// body is the consumer's handler and `payload`, with ordering key `orderKey` (`nil`: none).
    /// Counts it (0 or 1).
    case insertDelivery(consumer: String, revision: Int, payload: [UInt8], now: Double, due: Double, orderKey: String?)
    /// Makes each of `deliveries`, in their order, as ``insertDelivery(consumer:revision:payload:now:due:orderKey:)``
    /// makes one, all at `now`: the many deliveries of a bulk post in few statements. Counts them.
    case insertDeliveries([NewDelivery], now: Double)
    /// Makes `delivery`, whose post is debounced (`NewDelivery.debounce`), at `now`: when its
    /// consumer has a delivery with the same debounce key waiting for its first attempt (pending,
    /// never claimed), gives that one `delivery`'s payload and due time — but not past the
    /// debounce's maximum delay after that delivery was made — instead; otherwise makes it as
    /// ``insertDelivery(consumer:revision:payload:now:due:orderKey:)`` does, with its debounce key.
    /// Counts it (0 or 1).
    case debounceDelivery(NewDelivery, now: Double)
    /// Marks consumer `consumer` served: no later post delivers to it. Counts it (0 or 1).
    case markServed(consumer: String)
    /// Stores the record of signal `signal` at `revision`, posted at `now`, keeping `payload` until
    /// `keepUntil` (`nil`: not kept for consumers that register later), to be delivered not before
    /// `notBefore` (`nil`: at once), in place of the record it had. Counts it (1).
    case keepSignal(String, revision: Int, payload: [UInt8], now: Double, keepUntil: Double?, notBefore: Double?)
    /// Removes the record of signal `signal`. Counts it (0 or 1).
    case removeSignal(String)
    /// Settles promise `promise` with `settlement` when it is pending: it is kept for its retention
    /// from then on. Counts it (0 or 1).
    case settlePromise(String, PromiseSettlementRecord)
}

/// A pending delivery a post makes (`StoreStep.insertDeliveries(_:now:)`): of revision `revision`
/// of its consumer's signal, for consumer `consumer`, due at `due`, with `payload` and ordering key
/// `orderKey` (`nil`: none), debounced as `debounce` says (`nil`: not debounced).
package struct NewDelivery: Sendable, Hashable {
    package var consumer: String
    package var revision: Int
    package var payload: [UInt8]
    package var due: Double
    package var orderKey: String?
    package var debounce: Posting.Debouncing?

    package init(
        consumer: String, revision: Int, payload: [UInt8], due: Double, orderKey: String? = nil,
        debounce: Posting.Debouncing? = nil
    ) {
        self.consumer = consumer
        self.revision = revision
        self.payload = payload
        self.due = due
        self.orderKey = orderKey
        self.debounce = debounce
    }
}

/// What happens to the started attempts of a run that is retired (`StoreStep.interruptClaims(run:attempts:)`):
/// the values the core decided, which a store only applies.
package struct InterruptedAttempts: Sendable, Hashable {
    /// A started attempt with this number or higher makes its delivery dead.
    package var maximumAttempts: Int
    /// When a delivery whose started attempt was interrupted is due again (seconds since 1970).
    package var retryAt: Double
    /// Why: the store appends the attempt's number (`"… during attempt "` + `"3"`).
    package var reason: String

    package init(maximumAttempts: Int, retryAt: Double, reason: String) {
        self.maximumAttempts = maximumAttempts
        self.retryAt = retryAt
        self.reason = reason
    }
}

/// How a claimed delivery whose attempt failed is given back (`StoreStep.releaseClaim(_:)`): the
/// values the core decided, which a store only applies.
package struct ClaimRelease: Sendable, Hashable {
    /// The delivery's row.
    package var rowID: Int64
    /// The run and the attempt that must still hold its claim.
    package var run: String
    package var attempt: Int
    /// What it becomes: ``DeliveryState/pending`` (it is retried) or ``DeliveryState/dead``.
    package var state: DeliveryState
    /// Its last error.
    package var reason: String
    /// When it is due again (seconds since 1970); `nil`: its due time stays as it was.
    package var dueAt: Double?

    package init(rowID: Int64, run: String, attempt: Int, state: DeliveryState, reason: String, dueAt: Double?) {
        self.rowID = rowID
        self.run = run
        self.attempt = attempt
        self.state = state
        self.reason = reason
        self.dueAt = dueAt
    }
}
