import Foundation
import HandlerKit

/// The tables of a signal store as values in memory, with every step and operation of a store made
/// on them in Swift: the executable form of <doc:HowADeliveryMoves>. The SQL stores make the same steps
/// in SQL (their statements are written once, for both of them); the conformance suite and the
/// differential test hold the two forms to each other.
///
/// A store without SQL is built on it: it keeps the tables somewhere (``InMemorySignalStore`` in
/// memory behind a lock; a store over a file decodes them, `Codable`, at the start of each
/// operation and writes them back when they changed), makes each requirement of ``SignalStore`` one
/// call of the method of the same name inside its exclusive section, and after it wakes the
/// centers the answer names (``Answer/wakeUp``). Liveness stays the store's own: the tables record
/// runs, and the store proves which of them are alive (``takeOver(_:of:applying:isAlive:)``).
///
/// A value type: every method is synchronous and changes only the value it is called on.
@_spi(SignalStoreDriver)
public struct SignalTables: Sendable, Equatable {
    package struct Consumer: Sendable, Equatable {
        package var record: ConsumerRecord
        package var delivered = false
    }

    package struct Signal: Sendable, Equatable {
        package var revision: Int
        package var postedAt = Date()
        package var payload: [UInt8]
        package var keepUntil: Date?
        /// Not delivered before this time (seconds since 1970), or `nil` for no such time.
        package var notBefore: Double?
    }

    package struct Delivery: Sendable, Equatable {
        package var key: DeliveryKey
        package var consumerID: ConsumerID
        package var signalID: String
        package var revision: Int
        package var component: String
        package var ownerRun: String
        package var lifetime: ConsumerLifetime
        package var handlerID: String
        package var handler: [UInt8]
        package var payload: [UInt8]
        package var state: DeliveryState = .pending
        package var claimedBy: String?
        package var claimedAt: Date?
        package var attempt = 0
        package var notBefore: Date
        package var madeAt: Date
        package var lastError: String?
        /// Whether the current attempt's handler was started (`start`).
        package var started = false
        /// Whether the previous attempt was started and its run retired before settling it.
        package var crashed = false
        /// The post's ordering key, or `nil` for none (``heldBackRows()``).
        package var orderKey: String?
        /// The key of the debounced posts it collapses, or `nil` when its post was not debounced.
        package var debounceKey: String?
    }

    package struct Completion: Sendable, Equatable {
        package var record: CompletionRecord
        package var consumerID: ConsumerID
        package var signalID: String
        package var revision: Int
        package var completedAt: Date
    }

    /// Recorded runs and their components.
    package var runs: [String: String] = [:]
    /// When each recorded run started.
    package var runStarts: [String: Date] = [:]
    /// The process that started each recorded run (its id).
    package var runProcesses: [String: Int] = [:]
    /// Recorded runs that are suspended: they count as gone (taken over like ended runs).
    package var suspended: Set<String> = []
    /// In the order registered.
    package var consumers: [Consumer] = []
    package var signals: [String: Signal] = [:]
    /// By row id, which grows in the order made.
    package var deliveries: [Int64: Delivery] = [:]
    package var nextRowID: Int64 = 1
    package var completions: [Completion] = []
    /// Durable promises by id.
    package var promises: [String: PromiseRecord] = [:]
    /// The idempotency keys of posts, with the answer of the post that took each.
    package var postKeys: [String: PostKey] = [:]

    /// The idempotency key of a post: the post's answer, as text, and until when it is kept.
    package struct PostKey: Sendable, Hashable, Codable {
        package var answer: String
        package var keepUntil: Double
    }
    /// How long completions stay in the history, in seconds.
    package let completionHistory: Double

    /// Empty tables, whose history keeps completions for `completionHistory` (`SignalStore.completions(of:)`).
    @_spi(SignalStoreDriver)
    public init(completionHistory: Duration = .seconds(86_400)) {
        self.completionHistory = completionHistory.seconds
    }

    /// Empty tables, `completionHistory` in seconds (what ``init(from:)`` reads).
    package init(completionHistorySeconds: Double) {
        self.completionHistory = completionHistorySeconds
    }

    mutating func addDelivery(
        for consumer: ConsumerRecord, revision: Int, payload: [UInt8], now: Date, due: Date, orderKey: String? = nil,
        debounceKey: String? = nil
    ) {
        deliveries[nextRowID] = Delivery(
            key: DeliveryKey(consumer: consumer.id.rawValue, revision: revision), consumerID: consumer.id,
            signalID: consumer.signalID, revision: revision, component: consumer.component,
            ownerRun: consumer.runID,
            lifetime: consumer.lifetime, handlerID: consumer.handlerID, handler: consumer.handler, payload: payload,
            notBefore: due, madeAt: now, orderKey: orderKey, debounceKey: debounceKey)
        nextRowID += 1
    }

    /// The rows of deliveries that wait for an earlier delivery of their consumer with the same
    /// ordering key, in whatever state (pending, waiting for a retry, claimed or dead): every row with
    /// a key but the first of its consumer and key. They are neither claimed nor due
    /// (`StoreReads.orderCondition` in SQL). One pass over the rows, for a claim or a read to use.
    func heldBackRows() -> Set<Int64> {
        struct Group: Hashable {
            var consumer: ConsumerID
            var key: String
        }
        var first: [Group: Int64] = [:]
        for (id, row) in deliveries {
            guard let key = row.orderKey else { continue }
            let group = Group(consumer: row.consumerID, key: key)
            first[group] = min(first[group] ?? id, id)
        }
        var held: Set<Int64> = []
        for (id, row) in deliveries {
            guard let key = row.orderKey, first[Group(consumer: row.consumerID, key: key)] != id else { continue }
            held.insert(id)
        }
        return held
    }

    /// Claims up to `request.limit` deliveries that `request` takes, oldest first.
    mutating func claimDue(_ request: ClaimRequest, now seconds: Double) -> [ClaimedDelivery] {
        let now = Date(timeIntervalSince1970: seconds)
        let runID = request.runID
        let held = heldBackRows()
        let due =
            deliveries
            .filter { id, row in
                request.takes(
                    rowID: id, ownerRun: row.ownerRun, state: row.state, claimedBy: row.claimedBy,
                    isDue: row.notBefore <= now && !held.contains(id))
            }
            .keys.sorted().prefix(max(0, request.limit))
        return due.compactMap { id -> ClaimedDelivery? in
            guard var row = deliveries[id] else { return nil }
            row.state = .claimed
            row.claimedBy = runID
            row.claimedAt = now
            row.attempt += 1
            row.started = false
            deliveries[id] = row
            return ClaimedDelivery(
                rowID: id, key: row.key, consumerID: row.consumerID, signalID: row.signalID,
                revision: row.revision, handler: row.handler, payload: row.payload,
                attempt: row.attempt, runID: runID,
                mode: consumers.first { $0.record.id == row.consumerID }?.record.mode,
                previousAttemptCrashed: row.crashed)
        }
    }

    /// Marks `delivery` started if its run is recorded and it is still claimed by it and attempt.
    mutating func markStarted(_ delivery: ClaimedDelivery) -> StartOutcome {
        let recorded = runs[delivery.runID] != nil
        let marked = recorded && claimedRow(delivery) != nil
        if marked { deliveries[delivery.rowID]?.started = true }
        return StartOutcome(marked: marked, runRecorded: recorded)
    }

    /// The delivery `delivery` claimed, if it is still claimed by the same run and attempt.
    func claimedRow(_ delivery: ClaimedDelivery) -> Delivery? {
        claimedRow(delivery.rowID, run: delivery.runID, attempt: delivery.attempt)
    }

    /// The delivery in row `rowID`, if it is claimed by `run` with `attempt`.
    func claimedRow(_ rowID: Int64, run: String, attempt: Int) -> Delivery? {
        guard let row = deliveries[rowID], row.state == .claimed, row.claimedBy == run, row.attempt == attempt
        else { return nil }
        return row
    }
}
