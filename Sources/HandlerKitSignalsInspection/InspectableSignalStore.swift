import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// A signal store an operator can look inside: its runs with their liveness, its deliveries in
/// every state, the counts by component and state, its signal records and its history of
/// completions. ``SignalStoreInspector`` reads through it, and changes the store only through the
/// core's plans (`SignalStore.apply(_:)`).
///
/// Every requirement only reads: it writes nothing to the store, and testing whether a run is alive
/// takes nothing a run or a taker needs for longer than the test.
public protocol InspectableSignalStore: SignalStore {
    /// The runs recorded, oldest first, each with whether it is alive now.
    @_spi(SignalStoreDriver)
    func runRecords() async throws(SignalError) -> [RunRecord]
}

extension InspectableSignalStore {
    /// The deliveries that match `filter`, oldest first (by the order they were made), at most
    /// `filter.limit`; with their handler documents and payloads when `filter.includesBodies`.
    @_spi(SignalStoreDriver)
    public func deliveries(matching filter: DeliveryFilter) async throws(SignalError) -> [DeliveryRecord] {
        try await read(InspectionReads.deliveries(matching: filter))
    }

    /// How many deliveries each component has in each ``DeliveryFilter/State``, with the oldest of each.
    @_spi(SignalStoreDriver)
    public func deliveryCounts() async throws(SignalError) -> [DeliveryCount] {
        try await read(InspectionReads.deliveryCounts)
    }

    /// The signal records: signals with consumers, and signals kept for consumers that register later.
    @_spi(SignalStoreDriver)
    public func signalRecords() async throws(SignalError) -> [SignalRecord] {
        try await read(InspectionReads.signalRecords)
    }

    /// The completions in the history that match `filter`, oldest first, at most `filter.limit`.
    @_spi(SignalStoreDriver)
    public func completions(matching filter: CompletionFilter) async throws(SignalError) -> [CompletionEntry] {
        try await read(InspectionReads.completions(matching: filter))
    }
}

/// A run as recorded, with its liveness (`InspectableSignalStore.runRecords()`).
public struct RunRecord: Sendable, Hashable {
    /// The run's id.
    public var runID: String
    /// The component it runs as.
    public var component: String
    /// Where it runs: the host (when the store records it) and the process id.
    public var host: String?
    public var processID: Int
    /// When it started.
    public var startedAt: Date
    /// When it last proved it is alive, for stores that renew a lease (`nil` for a store whose runs
    /// hold a lock instead).
    public var heartbeatAt: Date?
    /// Whether it is alive now: its lock is held, or its lease is current. A gone run is taken over
    /// by the next process of its component that starts.
    public var isAlive: Bool

    @_spi(SignalStoreDriver)
    public init(
        runID: String, component: String, host: String?, processID: Int, startedAt: Date, heartbeatAt: Date?,
        isAlive: Bool
    ) {
        self.runID = runID
        self.component = component
        self.host = host
        self.processID = processID
        self.startedAt = startedAt
        self.heartbeatAt = heartbeatAt
        self.isAlive = isAlive
    }
}

/// Which deliveries `InspectableSignalStore.deliveries(matching:)` lists; every condition given
/// must hold.
public struct DeliveryFilter: Sendable, Hashable {
    /// Where a delivery is, as an operator sees it: `DeliveryState` with pending split in two.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Pending with no failed attempt behind it: waiting to be claimed from its due time on.
        case pending
        /// Pending after a failed attempt (it has a last error): waiting for its retry's due time.
        case retrying
        /// Claimed by a run, whose handler runs it (or did, when that run died).
        case claimed
        /// Parked until it is requeued (or discarded).
        case dead
    }

    /// Only deliveries in these states (`nil`: all).
    public var states: Set<State>?
    /// Only these: of this component, signal, handler id, consumer, key.
    public var component: String?
    public var signalID: String?
    public var handlerID: String?
    public var consumerID: ConsumerID?
    public var key: DeliveryKey?
    /// Only those posted with this ordering key (stores of an older schema have none).
    public var orderingKey: String?
    /// Only deliveries made before this time.
    public var madeBefore: Date?
    /// At most this many (`nil`: all).
    public var limit: Int?
    /// Whether each record carries its handler document and payload.
    public var includesBodies: Bool

    public init(
        states: Set<State>? = nil, component: String? = nil, signalID: String? = nil, handlerID: String? = nil,
        consumerID: ConsumerID? = nil, key: DeliveryKey? = nil, orderingKey: String? = nil, madeBefore: Date? = nil,
        limit: Int? = nil, includesBodies: Bool = false
    ) {
        self.states = states
        self.component = component
        self.signalID = signalID
        self.handlerID = handlerID
        self.consumerID = consumerID
        self.key = key
        self.orderingKey = orderingKey
        self.madeBefore = madeBefore
        self.limit = limit
        self.includesBodies = includesBodies
    }

    /// The operator's state of a stored delivery.
    @_spi(SignalStoreDriver)
    public static func state(of state: DeliveryState, lastError: String?) -> State {
        switch state {
        case .pending: lastError == nil ? .pending : .retrying
        case .claimed: .claimed
        case .dead: .dead
        }
    }

    /// Whether a delivery with these values passes the filter (for stores that filter in memory).
    @_spi(SignalStoreDriver)
    public func matches(_ delivery: DeliveryRecord) -> Bool {
        (states?.contains(delivery.filterState) ?? true) && (component.map { $0 == delivery.component } ?? true)
            && (signalID.map { $0 == delivery.signalID } ?? true)
            && (handlerID.map { $0 == delivery.handlerID } ?? true)
            && (consumerID.map { $0 == delivery.consumerID } ?? true) && (key.map { $0 == delivery.key } ?? true)
            && (orderingKey.map { $0 == delivery.orderingKey } ?? true)
            && (madeBefore.map { delivery.madeAt < $0 } ?? true)
    }
}

/// A delivery as stored, for an operator (`InspectableSignalStore.deliveries(matching:)`).
public struct DeliveryRecord: Sendable, Hashable {
    /// Its key (a consumer and a revision).
    public var key: DeliveryKey
    /// The consumer it is for, that consumer's component, lifetime and handler id.
    public var consumerID: ConsumerID
    public var component: String
    public var lifetime: ConsumerLifetime
    public var handlerID: String
    /// The signal and the revision it delivers.
    public var signalID: String
    public var revision: Int
    /// Where it is.
    public var state: DeliveryState
    /// The run that delivers it (its consumer's run), and the run that claimed it, when claimed.
    public var ownerRun: String
    public var claimedBy: String?
    /// When it was claimed, when claimed (`nil` too for a store that did not record it yet).
    public var claimedAt: Date?
    /// The attempts counted so far (the current one, when claimed).
    public var attempts: Int
    /// Whether the current claim's handler was started.
    public var started: Bool
    /// Whether its previous attempt was started and never settled (its process died).
    public var previousAttemptCrashed: Bool
    /// When it is (or was) due.
    public var dueAt: Date
    /// The last error: why its last attempt failed, or why it is dead.
    public var lastError: String?
    /// When it was made (by a post, or by a consumer registering for a kept signal).
    public var madeAt: Date
    /// The ordering key it was posted with: its consumer runs it only after every earlier delivery
    /// with the same key is gone (completed, or discarded).
    public var orderingKey: String?
    /// The debounce key of the posts it collapses (`Debounce`), or `nil` when its post was not
    /// debounced: while it waits for its first attempt, a post with the same key gives it its
    /// payload and moves its due time instead of making a delivery.
    public var debounceKey: String?
    /// The handler's JSON document and the payload's JSON object, when asked for
    /// (``DeliveryFilter/includesBodies``).
    public var handler: [UInt8]?
    public var payload: [UInt8]?

    @_spi(SignalStoreDriver)
    public init(
        key: DeliveryKey, consumerID: ConsumerID, component: String, lifetime: ConsumerLifetime, handlerID: String,
        signalID: String, revision: Int, state: DeliveryState, ownerRun: String, claimedBy: String?, claimedAt: Date?,
        attempts: Int,
        started: Bool, previousAttemptCrashed: Bool, dueAt: Date, lastError: String?, madeAt: Date,
        orderingKey: String? = nil, debounceKey: String? = nil, handler: [UInt8]? = nil, payload: [UInt8]? = nil
    ) {
        self.key = key
        self.consumerID = consumerID
        self.component = component
        self.lifetime = lifetime
        self.handlerID = handlerID
        self.signalID = signalID
        self.revision = revision
        self.state = state
        self.ownerRun = ownerRun
        self.claimedBy = claimedBy
        self.claimedAt = claimedAt
        self.attempts = attempts
        self.started = started
        self.previousAttemptCrashed = previousAttemptCrashed
        self.dueAt = dueAt
        self.lastError = lastError
        self.madeAt = madeAt
        self.orderingKey = orderingKey
        self.debounceKey = debounceKey
        self.handler = handler
        self.payload = payload
    }

    /// Its state as ``DeliveryFilter`` names it (pending split into pending and retrying).
    public var filterState: DeliveryFilter.State { DeliveryFilter.state(of: state, lastError: lastError) }
}

/// How many deliveries of a component are in a state (`InspectableSignalStore.deliveryCounts()`).
public struct DeliveryCount: Sendable, Hashable {
    /// The component whose consumers the deliveries are for.
    public var component: String
    /// The state counted.
    public var state: DeliveryFilter.State
    /// How many deliveries of `component` are in `state`.
    public var count: Int
    /// When the oldest of them was made.
    public var oldestMadeAt: Date

    @_spi(SignalStoreDriver)
    public init(component: String, state: DeliveryFilter.State, count: Int, oldestMadeAt: Date) {
        self.component = component
        self.state = state
        self.count = count
        self.oldestMadeAt = oldestMadeAt
    }
}

/// A signal's record (`InspectableSignalStore.signalRecords()`).
public struct SignalRecord: Sendable, Hashable {
    /// The signal's id.
    public var signalID: String
    /// Its latest revision, and when it was posted.
    public var revision: Int
    public var postedAt: Date
    /// Until when it is kept for consumers that register later (`nil`: not kept).
    public var keptUntil: Date?

    @_spi(SignalStoreDriver)
    public init(signalID: String, revision: Int, postedAt: Date, keptUntil: Date?) {
        self.signalID = signalID
        self.revision = revision
        self.postedAt = postedAt
        self.keptUntil = keptUntil
    }

    /// Whether it is kept at `now`.
    @_spi(SignalStoreDriver)
    public func isKept(at now: Date = Date()) -> Bool {
        keptUntil.map { $0 >= now } ?? false
    }
}

/// Which completions `InspectableSignalStore.completions(matching:)` lists; every condition given
/// must hold.
public struct CompletionFilter: Sendable, Hashable {
    /// Only those of this delivery, of this consumer, of this signal.
    public var key: DeliveryKey?
    public var consumerID: ConsumerID?
    public var signalID: String?
    /// Only completions recorded before this time.
    public var completedBefore: Date?
    /// At most this many (`nil`: all).
    public var limit: Int?

    public init(
        key: DeliveryKey? = nil, consumerID: ConsumerID? = nil, signalID: String? = nil,
        completedBefore: Date? = nil, limit: Int? = nil
    ) {
        self.key = key
        self.consumerID = consumerID
        self.signalID = signalID
        self.completedBefore = completedBefore
        self.limit = limit
    }

    /// Whether a completion passes the filter (for stores that filter in memory).
    @_spi(SignalStoreDriver)
    public func matches(_ completion: CompletionEntry) -> Bool {
        (key.map { $0 == completion.key } ?? true) && (consumerID.map { $0 == completion.consumerID } ?? true)
            && (signalID.map { $0 == completion.signalID } ?? true)
            && (completedBefore.map { completion.completedAt < $0 } ?? true)
    }
}

/// A completion in the store's history (`InspectableSignalStore.completions(matching:)`).
public struct CompletionEntry: Sendable, Hashable {
    /// The delivery completed: its key, consumer, signal and revision.
    public var key: DeliveryKey
    public var consumerID: ConsumerID
    public var signalID: String
    public var revision: Int
    /// The run that completed it, its attempt, and when.
    public var runID: String
    public var attempt: Int
    public var completedAt: Date

    @_spi(SignalStoreDriver)
    public init(
        key: DeliveryKey, consumerID: ConsumerID, signalID: String, revision: Int, runID: String, attempt: Int,
        completedAt: Date
    ) {
        self.key = key
        self.consumerID = consumerID
        self.signalID = signalID
        self.revision = revision
        self.runID = runID
        self.attempt = attempt
        self.completedAt = completedAt
    }
}
