import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// What an operator sees of a signal store and what they may change in it, for tools such as the
/// `handlerkit-signals` command line: runs and their liveness, deliveries by state, consumers and
/// completions; requeueing dead deliveries, discarding a delivery or a consumer, purging the history
/// of completions.
///
/// Reading writes nothing. Each action is one of the core's plans, made in one transaction by the
/// store (the same rules as `SignalCenter.requeue(_:)` and `SignalCenter.remove(_:)`), and
/// returns what it changed.
///
/// ```swift
/// let inspector = SignalStoreInspector(store: try SQLiteSignalStore(inspecting: path))
/// let status = try await inspector.status()
/// for count in status.counts { print(count.component, count.state, count.count) }
/// ```
public struct SignalStoreInspector: Sendable {
    /// The store looked into.
    public let store: any InspectableSignalStore

    /// An inspector of `store` (opened read-only, for a look that changes nothing, e.g.
    /// `SQLiteSignalStore(inspecting:)`; its actions then throw `SignalError.storeReadOnly`).
    public init(store: any InspectableSignalStore) {
        self.store = store
    }

    /// What the store holds, at a glance.
    public struct Status: Sendable, Hashable {
        /// Where the store is.
        public var location: String
        /// The runs recorded, oldest first.
        public var runs: [RunRecord]
        /// The deliveries of each component in each state, by component then state.
        public var counts: [DeliveryCount]
        /// When the oldest delivery waiting to be claimed (pending or retrying) was made.
        public var oldestWaiting: Date?
        /// Dead deliveries, consumers, signal records kept for late consumers, completions in the history.
        public var deadDeliveries: Int
        public var consumers: Int
        public var keptSignals: Int
        public var completions: Int

        public init(
            location: String, runs: [RunRecord], counts: [DeliveryCount], oldestWaiting: Date?, deadDeliveries: Int,
            consumers: Int, keptSignals: Int, completions: Int
        ) {
            self.location = location
            self.runs = runs
            self.counts = counts
            self.oldestWaiting = oldestWaiting
            self.deadDeliveries = deadDeliveries
            self.consumers = consumers
            self.keptSignals = keptSignals
            self.completions = completions
        }

        /// The components that have runs, consumers' deliveries or counts, in order.
        public var components: [String] {
            Set(runs.map(\.component) + counts.map(\.component)).sorted()
        }

        /// The components with deliveries waiting to be claimed (pending or retrying) and no run alive:
        /// nothing delivers them until a process of the component starts (and takes the gone runs over).
        public var componentsWithoutLiveRun: [String] {
            components.filter { component in
                count(of: component, in: .pending) + count(of: component, in: .retrying) > 0
                    && !runs.contains { $0.component == component && $0.isAlive }
            }
        }

        /// How many deliveries `component` has in `state`.
        public func count(of component: String, in state: DeliveryFilter.State) -> Int {
            counts.first { $0.component == component && $0.state == state }?.count ?? 0
        }
    }

    /// The store's runs, counts by component and state, oldest waiting delivery, dead deliveries and
    /// kept signals.
    public func status(now: Date = Date()) async throws(SignalError) -> Status {
        let counts = try await store.deliveryCounts().sorted {
            ($0.component, Self.order($0.state)) < ($1.component, Self.order($1.state))
        }
        let statistics = try await store.statistics()
        return Status(
            location: store.location, runs: try await store.runRecords(), counts: counts,
            oldestWaiting: counts.filter { $0.state == .pending || $0.state == .retrying }.map(\.oldestMadeAt).min(),
            deadDeliveries: counts.filter { $0.state == .dead }.reduce(0) { $0 + $1.count },
            consumers: statistics.consumers,
            keptSignals: try await store.signalRecords().filter { $0.isKept(at: now) }.count,
            completions: statistics.completions)
    }

    private static func order(_ state: DeliveryFilter.State) -> Int {
        DeliveryFilter.State.allCases.firstIndex(of: state) ?? 0
    }

    /// The runs recorded, with their liveness.
    public func runs() async throws(SignalError) -> [RunRecord] {
        try await store.runRecords()
    }

    /// The signals the store records (the last revision of each, and until when it is kept for
    /// consumers that register later), in no particular order.
    public func signals() async throws(SignalError) -> [SignalRecord] {
        try await store.signalRecords()
    }

    /// The consumers of `component` (or of all components), filtered by signal and handler id.
    public func consumers(
        component: String? = nil, signalID: String? = nil, handlerID: String? = nil
    ) async throws(SignalError) -> [ConsumerRecord] {
        try await store.consumers(of: component).filter { consumer in
            (signalID.map { consumer.signalID == $0 } ?? true) && (handlerID.map { consumer.handlerID == $0 } ?? true)
        }
    }

    /// The deliveries that match `filter`, oldest first.
    public func deliveries(
        matching filter: DeliveryFilter = DeliveryFilter()
    ) async throws(SignalError)
        -> [DeliveryRecord]
    {
        try await store.deliveries(matching: filter)
    }

    /// The delivery with `key`, with its handler document and payload; `nil` when there is none
    /// (it was completed, discarded, or never made).
    public func delivery(_ key: DeliveryKey) async throws(SignalError) -> DeliveryRecord? {
        try await store.deliveries(matching: DeliveryFilter(key: key, limit: 1, includesBodies: true)).first
    }

    /// The completions in the history that match `filter`, oldest first.
    public func completions(matching filter: CompletionFilter) async throws(SignalError) -> [CompletionEntry] {
        try await store.completions(matching: filter)
    }

    // MARK: Actions

    /// Requeues the dead deliveries that match `filter` (its states are ignored: only dead ones are
    /// requeued): each becomes pending, due now, with a fresh count of attempts and no last error, and
    /// every center of the store is woken. A delivery whose run is gone is delivered by the next
    /// process of its component that starts (it takes the run over). Returns those requeued.
    public func requeue(matching filter: DeliveryFilter) async throws(SignalError) -> [DeliveryRecord] {
        var dead = filter
        dead.states = [.dead]
        dead.includesBodies = false
        let found = try await store.deliveries(matching: dead)
        guard !found.isEmpty else { return [] }
        let plan = StorePlan.requeue(found.map(\.key), now: Date().timeIntervalSince1970)
        let counts = try await store.apply(plan)
        return zip(found, counts).filter { $0.1 > 0 }.map(\.0)
    }

    /// What ``discardDelivery(_:)`` found and did.
    public enum DiscardOutcome: Sendable, Hashable {
        /// The delivery was removed (as it was just before).
        case discarded(DeliveryRecord)
        /// The delivery is claimed by a run (its handler may be running): nothing changed. Discard it
        /// once it is settled, or once its run is gone and taken over.
        case claimed(DeliveryRecord)
        /// No delivery has this key (completed, discarded, or never made).
        case notFound
    }

    /// Removes a pending or dead delivery without running its handler and without recording a
    /// completion. A claimed one is left alone (``DiscardOutcome/claimed(_:)``).
    public func discardDelivery(_ key: DeliveryKey) async throws(SignalError) -> DiscardOutcome {
        guard let found = try await store.deliveries(matching: DeliveryFilter(key: key, limit: 1)).first else {
            return .notFound
        }
        if found.state == .claimed { return .claimed(found) }
        let counts = try await store.apply(StorePlan.discard(key))
        if counts.first ?? 0 > 0 { return .discarded(found) }
        // It changed meanwhile: claimed, completed or discarded by someone else.
        guard let now = try await store.deliveries(matching: DeliveryFilter(key: key, limit: 1)).first else {
            return .notFound
        }
        return now.state == .claimed ? .claimed(now) : .notFound
    }

    /// What ``discardConsumer(_:)`` removed.
    public struct ConsumerDiscard: Sendable, Hashable {
        /// The consumer, as it was (`nil`: there was none with this id).
        public var consumer: ConsumerRecord?
        /// Its deliveries removed: pending ones and dead ones.
        public var pendingDeliveries: Int
        public var deadDeliveries: Int
        /// Its claimed deliveries, left to finish (or to be taken over) without their consumer.
        public var claimedDeliveries: Int

        public init(consumer: ConsumerRecord?, pendingDeliveries: Int, deadDeliveries: Int, claimedDeliveries: Int) {
            self.consumer = consumer
            self.pendingDeliveries = pendingDeliveries
            self.deadDeliveries = deadDeliveries
            self.claimedDeliveries = claimedDeliveries
        }
    }

    /// Removes a consumer with its pending and dead deliveries (a claimed one finishes), then the
    /// signal records no one uses any more: no post delivers to it again.
    public func discardConsumer(_ id: ConsumerID) async throws(SignalError) -> ConsumerDiscard {
        let consumer = try await store.consumers(of: nil).first { $0.id == id }
        let deliveries = try await store.deliveries(matching: DeliveryFilter(consumerID: id))
        let dead = deliveries.filter { $0.state == .dead }.map(\.key)
        let plan = StorePlan.discardConsumer(id, dead: dead, now: Date().timeIntervalSince1970)
        let counts = try await store.apply(plan)
        let removed = plan.removedConsumer(counts: counts)
        return ConsumerDiscard(
            consumer: removed ? consumer : nil, pendingDeliveries: counts.first ?? 0,
            deadDeliveries: counts.dropFirst().prefix(dead.count).reduce(0, +),
            claimedDeliveries: deliveries.filter { $0.state == .claimed }.count)
    }

    /// Removes completions from the history: those recorded before `completedBefore` (default: now),
    /// of `key` only when given. Returns how many were removed. Completions are history only
    /// (`SignalStore.completions(of:)`); no delivery changes.
    public func purgeCompletions(
        of key: DeliveryKey? = nil, completedBefore: Date = Date()
    ) async throws(SignalError) -> Int {
        let plan = StorePlan.purgeCompletions(of: key, completedBefore: completedBefore.timeIntervalSince1970)
        return try await store.apply(plan).first ?? 0
    }

    // MARK: Stored handlers

    /// A stored handler that does not rebuild under a registry (``checkStoredHandlers(registry:)``).
    public struct StoredHandlerProblem: Sendable, Hashable, CustomStringConvertible {
        /// What holds it: a consumer (`nil` key) or one of its deliveries.
        public var consumerID: ConsumerID
        public var key: DeliveryKey?
        public var component: String
        public var signalID: String
        public var handlerID: String
        /// What a delivery gets from it, the error that parks the delivery dead
        /// (`SignalError.handlerNotRegistered`, `.malformedRecord`, `.invalidPayload`).
        public var error: SignalError

        public init(
            consumerID: ConsumerID, key: DeliveryKey?, component: String, signalID: String, handlerID: String,
            error: SignalError
        ) {
            self.consumerID = consumerID
            self.key = key
            self.component = component
            self.signalID = signalID
            self.handlerID = handlerID
            self.error = error
        }

        public var description: String {
            (key.map { "delivery \($0)" } ?? "consumer \(consumerID)")
                + " (component '\(component)', signal '\(signalID)', handler \(handlerID)): \(error)"
        }
    }

    /// Rebuilds every stored handler under `registry`, as a delivery does, and returns each one that
    /// does not rebuild: every consumer's handler, and every delivery's (pending, claimed or dead)
    /// with its payload bound, with the error its delivery would get. Changes nothing.
    ///
    /// For an app's test suite, on a snapshot of a store its users have (opened with
    /// `SQLiteSignalStore(inspecting:)`), under the registry of the build being released: a release
    /// that would park users' deliveries as dead fails in CI, not on their devices.
    public func checkStoredHandlers(
        registry: HandlerRegistry = .shared
    ) async throws(SignalError)
        -> [StoredHandlerProblem]
    {
        var problems: [StoredHandlerProblem] = []
        for consumer in try await store.consumers(of: nil) {
            do {
                _ = try SignalCenter.rebuild(
                    consumer.handler, table: "consumers", key: consumer.id.rawValue, registry: registry)
            } catch {
                problems.append(
                    StoredHandlerProblem(
                        consumerID: consumer.id, key: nil, component: consumer.component, signalID: consumer.signalID,
                        handlerID: consumer.handlerID, error: error))
            }
        }
        for delivery in try await store.deliveries(matching: DeliveryFilter(includesBodies: true)) {
            let claimed = ClaimedDelivery(
                rowID: 0, key: delivery.key, consumerID: delivery.consumerID, signalID: delivery.signalID,
                revision: delivery.revision, handler: delivery.handler ?? [], payload: delivery.payload ?? [],
                attempt: delivery.attempts, runID: delivery.ownerRun, mode: nil, previousAttemptCrashed: false)
            do {
                try SignalCenter.checkHandler(of: claimed, registry: registry)
            } catch {
                problems.append(
                    StoredHandlerProblem(
                        consumerID: delivery.consumerID, key: delivery.key, component: delivery.component,
                        signalID: delivery.signalID, handlerID: delivery.handlerID, error: error))
            }
        }
        return problems
    }
}
