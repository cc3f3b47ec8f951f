import Foundation

/// The driver protocol: where signals, consumers and deliveries live, how runs prove they are alive,
/// and how processes wake each other. `SignalCenter` is the API apps use; it makes the decisions
/// (what to claim, when to retry, when a delivery is dead, which runs to take over) and calls the
/// store for each step. Stores: ``InMemorySignalStore`` (here), `SQLiteSignalStore`
/// (`HandlerKitSignalsSQLite`) and `PostgresSignalStore` (`HandlerKitSignalsPostgres`).
///
/// Every requirement is one atomic transaction (or none): a crash, a busy database or an error leaves
/// either all of its changes or none. <doc:HowADeliveryMoves> states each one's preconditions,
/// effects and guarantees; `HandlerKitSignalsTestKit` checks a store against them.
public protocol SignalStore: Sendable {
    /// Where the store is, for messages (a path or a URL without credentials).
    var location: String { get }

    /// Starts a run of `component`: records it and takes the lock that proves it is alive for as long
    /// as this process lives (the kernel or the server releases it when the process dies).
    func beginRun(_ runID: String, component: String) async throws(SignalError)

    /// Ends a run cleanly: releases its claims that are not completed, removes its run-tied consumers,
    /// and releases its lock. Durable consumers stay, for the component's next process.
    func endRun(_ runID: String, component: String) async throws(SignalError)

    /// The runs of `component` other than `runID` that the store knows of: those recorded, and those
    /// its consumers and deliveries still name (a run may be gone while they remain).
    func runs(of component: String, besides runID: String) async throws(SignalError) -> [String]

    /// Takes over `run` of `component` if it is gone (its proof of life has lapsed): its claimed
    /// deliveries become pending again, its run-tied consumers and their open deliveries are removed,
    /// its durable consumers and remaining deliveries move to `runID`, its record is removed, and
    /// `runID` is woken when this made deliveries due. `nil` when `run` is alive, or is no longer
    /// recorded and left nothing (nothing changed).
    func takeOver(_ run: String, of component: String, by runID: String) async throws(SignalError) -> TakeoverReport?

    /// Stores a consumer. When its signal is kept for late consumers, it receives the kept revision
    /// at once; returns how many deliveries that made (0 or 1).
    func insertConsumer(_ consumer: ConsumerRecord) async throws(SignalError) -> Int

    /// Removes a consumer and its deliveries that are not dead; `false` if there was none.
    func removeConsumer(_ id: ConsumerID) async throws(SignalError) -> Bool

    /// The consumers of a component, or of all components.
    func consumers(of component: String?) async throws(SignalError) -> [ConsumerRecord]

    /// Posts a revision of `signalID` with `payload` (a JSON object): one delivery per consumer that
    /// takes it. `keepUntil` keeps it for consumers that register later.
    func post(_ signalID: String, payload: [UInt8], keepUntil: Date?) async throws(SignalError) -> PostResult

    /// Claims up to `limit` due deliveries of `runID`, oldest first.
    func claim(for runID: String, limit: Int) async throws(SignalError) -> [ClaimedDelivery]

    /// Completes a claimed delivery if it is still claimed by the same run and attempt: removes it,
    /// records the completion, ends a once consumer and the signal's record when its last consumer is
    /// gone. `false` when the claim was lost (nothing changed).
    func complete(_ delivery: ClaimedDelivery) async throws(SignalError) -> Bool

    /// Gives a claimed delivery back after its handler failed (same run and attempt): pending again
    /// at `retryAt`, or dead with `reason` when `retryAt` is `nil`. `false` when the claim was lost.
    func release(_ delivery: ClaimedDelivery, reason: String, retryAt: Date?) async throws(SignalError) -> Bool

    /// When the next delivery of `runID` that waits for a retry is due, if any.
    func nextRetry(for runID: String) async throws(SignalError) -> Date?

    /// The number of deliveries of `runID` not yet completed (pending or claimed, not dead).
    func openDeliveries(for runID: String) async throws(SignalError) -> Int

    /// The dead deliveries of a component, or of all components.
    func deadDeliveries(of component: String?) async throws(SignalError) -> [DeadDelivery]

    /// Makes a dead delivery pending again, with a fresh count of attempts. A delivery whose run is
    /// gone moves to `runID` when it belongs to the same component. `false` if no dead delivery has
    /// this key.
    func requeue(_ key: DeliveryKey, by runID: String, component: String) async throws(SignalError) -> Bool

    /// The completions recorded for `key` (the store keeps a history of completions for a while).
    func completions(of key: DeliveryKey) async throws(SignalError) -> [CompletionRecord]

    /// How many runs, consumers, signal records and deliveries the store holds.
    func statistics() async throws(SignalError) -> SignalStoreStatistics

    /// A listener that wakes when any process posts, registers or requeues.
    func makeWakeListener() throws(SignalError) -> any SignalWakeListener
}

extension SignalStore {
    /// Takes over every run of `component` other than `runID` that is gone (``takeOver(_:of:by:)``
    /// for each of ``runs(of:besides:)``), and reports what changed. Runs that are alive are left alone.
    public func takeOverDeadRuns(of component: String, by runID: String) async throws(SignalError) -> TakeoverReport {
        var report = TakeoverReport()
        for run in try await runs(of: component, besides: runID) {
            guard let taken = try await takeOver(run, of: component, by: runID) else { continue }
            report.deadRuns.append(run)
            report.interruptedDeliveries += taken.interruptedDeliveries
            report.adoptedConsumers += taken.adoptedConsumers
            report.removedConsumers += taken.removedConsumers
        }
        return report
    }
}

/// Wakes a signal center when another process (or this one) changed what it may deliver.
public protocol SignalWakeListener: AnyObject, Sendable {
    /// Returns when a wake-up arrived since the last call, when `deadline` passes, or when closed.
    func next(deadline: ContinuousClock.Instant) async
    /// Stops listening; a waiting `next` returns.
    func close()
}
