import Foundation

/// Where signals, consumers and deliveries live, and how runs prove they are alive and processes
/// wake each other. `SQLiteSignalStore` is the embedded store; a PostgreSQL store implements the same
/// protocol. `SignalCenter` is the API apps use; it calls the store.
///
/// Every method is one atomic transaction (or none): a crash, a busy database or an error leaves
/// either all of its changes or none.
public protocol SignalStore: Sendable {
    /// Where the store is, for messages (a path or a URL without credentials).
    var location: String { get }

    /// Starts a run of `component`: records it and takes the lock that proves it is alive for as long
    /// as this process lives (the kernel or the server releases it when the process dies).
    func beginRun(_ runID: String, component: String) async throws(SignalError)

    /// Ends a run cleanly: releases its claims that are not completed, removes its run-tied consumers,
    /// and releases its lock. Durable consumers stay, for the component's next process.
    func endRun(_ runID: String, component: String) async throws(SignalError)

    /// Takes over every other run of `component` that is gone (its lock is free): its claimed
    /// deliveries run again, its durable consumers and their deliveries move to `runID`, its
    /// run-tied consumers are removed. Runs that are alive are left alone.
    func takeOverDeadRuns(of component: String, by runID: String) async throws(SignalError) -> TakeoverReport

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

/// Wakes a signal center when another process (or this one) changed what it may deliver.
public protocol SignalWakeListener: AnyObject, Sendable {
    /// Returns when a wake-up arrived since the last call, when `deadline` passes, or when closed.
    func next(deadline: ContinuousClock.Instant) async
    /// Stops listening; a waiting `next` returns.
    func close()
}
