/// One primitive change to a store's tables, made inside a transaction the store holds.
///
/// The core lists, in ``StorePlan``, which steps make up each operation that changes several
/// tables, and in which order; a store only says how it makes each step (its SQL, or its memory)
/// and how many rows that step changed.
package enum StoreStep: Sendable, Hashable {
    /// The deliveries claimed by `run` become pending again. Counts them.
    case interruptClaims(run: String)
    /// Removes the deliveries owned by `run` for its run-tied consumers that are not dead (with
    /// their bodies). Counts them.
    case removeRunTiedDeliveries(run: String)
    /// Removes the run-tied consumers of `run`. Counts them.
    case removeRunTiedConsumers(run: String)
    /// The consumers of `run` become `taker`'s. Counts them.
    case moveConsumers(of: String, to: String)
    /// The deliveries owned by `run` (dead ones included) become `taker`'s. Counts them.
    case moveDeliveries(of: String, to: String)
    /// Removes the record of `run`. Counts it.
    case removeRun(String)
    /// Removes the pending deliveries of `consumer` (with their bodies). Counts them.
    case removePendingDeliveries(consumer: String)
    /// Removes the consumer with this id. Counts it.
    case removeConsumer(String)
    /// Removes the signal records no consumer uses that are not kept at `now` (a keep that ended
    /// before `now`, seconds since 1970, no longer counts). Counts them.
    case removeUnusedSignals(now: Double)
    /// Removes the completions recorded before `before` (seconds since 1970). Counts them.
    case forgetCompletions(before: Double)
}
