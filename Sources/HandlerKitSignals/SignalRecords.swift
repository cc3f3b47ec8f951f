import Foundation

/// What a post did.
public struct PostResult: Sendable, Hashable {
    /// The signal posted.
    public var signalID: SignalID
    /// The revision this post made (1 for the first post while the signal's record exists).
    public var revision: Int
    /// How many consumers will receive this revision.
    public var deliveries: Int
    /// Whether the signal is kept for consumers that register later (`UnconsumedPolicy.keep`).
    public var kept: Bool

    /// Whether no consumer receives this revision (the post is not silent about it).
    public var hadNoConsumer: Bool { deliveries == 0 }

    @_spi(SignalStoreDriver)
    public init(signalID: SignalID, revision: Int, deliveries: Int, kept: Bool) {
        self.signalID = signalID
        self.revision = revision
        self.deliveries = deliveries
        self.kept = kept
    }
}

/// A registered consumer as stored.
public struct ConsumerRecord: Sendable, Hashable {
    /// The consumer's id (a UUID, or the id it was registered with).
    public var id: ConsumerID
    /// The signal it consumes.
    public var signalID: String
    /// The component whose processes deliver to it.
    public var component: String
    /// The run that delivers to it: the registering run, or the run that took it over (for a work
    /// queue's consumer, the queue's owner: `queue:` and its component).
    public var runID: String
    /// Durable, tied to its run, or its component's work queue's.
    public var lifetime: ConsumerLifetime
    /// Once, or every revision.
    public var mode: DeliveryMode
    /// The consumer's handler, as its JSON document.
    public var handler: [UInt8]
    /// The handler's id (stored apart, to name it when its document cannot be rebuilt).
    public var handlerID: String

    @_spi(SignalStoreDriver)
    public init(
        id: ConsumerID, signalID: String, component: String, runID: String, lifetime: ConsumerLifetime,
        mode: DeliveryMode, handler: [UInt8], handlerID: String
    ) {
        self.id = id
        self.signalID = signalID
        self.component = component
        self.runID = runID
        self.lifetime = lifetime
        self.mode = mode
        self.handler = handler
        self.handlerID = handlerID
    }
}

/// A delivery claimed by a run: what is needed to run its handler and to complete it.
@_spi(SignalStoreDriver)
public struct ClaimedDelivery: Sendable, Hashable {
    /// The store's row of the delivery.
    @_spi(SignalStoreDriver) public var rowID: Int64
    /// The delivery key the handler receives.
    @_spi(SignalStoreDriver) public var key: DeliveryKey
    /// The consumer delivered to.
    @_spi(SignalStoreDriver) public var consumerID: ConsumerID
    /// The signal and the revision delivered.
    @_spi(SignalStoreDriver) public var signalID: String
    @_spi(SignalStoreDriver) public var revision: Int
    /// The handler's JSON document.
    @_spi(SignalStoreDriver) public var handler: [UInt8]
    /// The payload's JSON object.
    @_spi(SignalStoreDriver) public var payload: [UInt8]
    /// This attempt's number (1 for the first); with the run, it guards completion.
    @_spi(SignalStoreDriver) public var attempt: Int
    /// The run that claimed it.
    @_spi(SignalStoreDriver) public var runID: String
    /// Its consumer's mode, as stored when it was claimed (`nil` when the consumer no longer exists).
    @_spi(SignalStoreDriver) public var mode: DeliveryMode?
    /// Whether its previous attempt was started and never settled: the process running its handler
    /// died (a handler that crashes its process would do so again). A center runs such deliveries
    /// after the others it claimed with them.
    @_spi(SignalStoreDriver) public var previousAttemptCrashed: Bool

    @_spi(SignalStoreDriver)
    public init(
        rowID: Int64, key: DeliveryKey, consumerID: ConsumerID, signalID: String, revision: Int, handler: [UInt8],
        payload: [UInt8], attempt: Int, runID: String, mode: DeliveryMode?, previousAttemptCrashed: Bool
    ) {
        self.rowID = rowID
        self.key = key
        self.consumerID = consumerID
        self.signalID = signalID
        self.revision = revision
        self.handler = handler
        self.payload = payload
        self.attempt = attempt
        self.runID = runID
        self.mode = mode
        self.previousAttemptCrashed = previousAttemptCrashed
    }
}

extension ClaimedDelivery {
    /// `deliveries` in the order a center runs them: by row, those whose previous attempt crashed
    /// last (a handler that crashed its process would likely do so again and take the others with it).
    @_spi(SignalStoreDriver)
    public static func runningOrder(_ deliveries: [ClaimedDelivery]) -> [ClaimedDelivery] {
        deliveries.sorted {
            ($0.previousAttemptCrashed ? 1 : 0, $0.rowID) < ($1.previousAttemptCrashed ? 1 : 0, $1.rowID)
        }
    }
}

/// What `SignalStore.claim(_:)` claimed.
@_spi(SignalStoreDriver)
public struct ClaimedBatch: Sendable, Hashable {
    /// The deliveries claimed, in `ClaimedDelivery.runningOrder(_:)`.
    @_spi(SignalStoreDriver) public var deliveries: [ClaimedDelivery]
    /// What marking the first of them started found; `nil` when none was claimed, or when the store
    /// did not mark it with the claim (the center then marks it with `SignalStore.start(_:)`).
    /// `StartOutcome.runTakenOver` with no deliveries: the run is no longer recorded, and the store
    /// claimed none of its due deliveries (the center then carries on as a new run).
    @_spi(SignalStoreDriver) public var firstStart: StartOutcome?
    /// Whether every delivery claimed was marked started with the claim (`ClaimRequest.startingAll`);
    /// when not, only ``firstStart`` tells of a mark, and the center marks the others with
    /// `SignalStore.start(_:)`.
    @_spi(SignalStoreDriver) public var allStarted: Bool

    @_spi(SignalStoreDriver)
    public init(deliveries: [ClaimedDelivery], firstStart: StartOutcome?, allStarted: Bool = false) {
        self.deliveries = deliveries
        self.firstStart = firstStart
        self.allStarted = allStarted
    }
}

/// What `SignalStore.complete(_:endingConsumer:thenStarting:)` did.
@_spi(SignalStoreDriver)
public struct CompletionOutcome: Sendable, Hashable {
    /// Whether the delivery was completed (`false`: its claim was lost, nothing changed).
    @_spi(SignalStoreDriver) public var completed: Bool
    /// What marking the next delivery started found, when one was given; `nil` also when the store
    /// could not mark it without undoing the completion (the center then marks it with
    /// `SignalStore.start(_:)`).
    @_spi(SignalStoreDriver) public var next: StartOutcome?

    @_spi(SignalStoreDriver)
    public init(completed: Bool, next: StartOutcome?) {
        self.completed = completed
        self.next = next
    }
}

/// What `SignalStore.start(_:)` found.
@_spi(SignalStoreDriver)
public enum StartOutcome: Sendable, Hashable {
    /// The attempt is marked started: its handler may run now.
    @_spi(SignalStoreDriver) case started
    /// The delivery is no longer claimed by this run and attempt (completed, released, or given to
    /// another run): its handler must not run.
    @_spi(SignalStoreDriver) case claimLost
    /// The run is no longer recorded: another process took it over, with all its claims.
    @_spi(SignalStoreDriver) case runTakenOver

    /// What a store's mark of a started attempt found, from its two facts: whether the mark changed
    /// the delivery (still claimed by the run, with the same attempt), and whether the run is still
    /// recorded.
    package init(marked: Bool, runRecorded: Bool) {
        self = marked ? .started : runRecorded ? .claimLost : .runTakenOver
    }
}

/// A delivery parked as dead: its handler kept throwing, no longer exists, or its record or
/// payload cannot be used. It stays until it is requeued.
public struct DeadDelivery: Sendable, Hashable {
    /// The key to requeue it with (`SignalCenter.requeue(_:)`).
    public var key: DeliveryKey
    /// The signal and the revision it would deliver.
    public var signalID: String
    public var revision: Int
    /// The consumer, its component and its handler's id.
    public var consumerID: ConsumerID
    public var component: String
    public var handlerID: String
    /// The attempts counted: each claim whose handler was started (one interrupted by its process's
    /// death too) or that a store failure made its run give back; not a claim that its run's end or
    /// takeover interrupted before its handler started.
    public var attempts: Int
    /// Why it is dead (the last error).
    public var reason: String

    /// The reason of a dead delivery whose record holds none (a store lists it with this one).
    package static let unknownReason = "unknown"

    @_spi(SignalStoreDriver)
    public init(
        key: DeliveryKey, signalID: String, revision: Int, consumerID: ConsumerID, component: String, handlerID: String,
        attempts: Int, reason: String
    ) {
        self.key = key
        self.signalID = signalID
        self.revision = revision
        self.consumerID = consumerID
        self.component = component
        self.handlerID = handlerID
        self.attempts = attempts
        self.reason = reason
    }
}

/// What a run found and changed when it took over runs of its component that are gone: runs whose
/// process died (or was suspended), and runs that ended cleanly and left durable consumers or
/// deliveries for the component's next process.
public struct TakeoverReport: Sendable, Hashable {
    /// The runs found dead and taken over: their process crashed, was killed, lost its lease or was
    /// suspended, without ending its run. Counted by the metric ``SignalMetricNames/takeovers``.
    public var deadRuns: [String] = []
    /// The runs that had ended cleanly (``SignalCenter/stop()``, ``SignalCenter/stop(finishingWithin:)``)
    /// whose durable consumers, or deliveries, this run adopted. That is a clean stop's hand-over to the
    /// component's next process, not a takeover: it is not counted as one, and is logged at `debug`.
    public var endedRuns: [String] = []
    /// Deliveries that a dead run had claimed and not completed: they run again.
    public var interruptedDeliveries = 0
    /// Durable consumers now delivered by this run (of dead runs and of runs that ended cleanly).
    public var adoptedConsumers = 0
    /// Consumers tied to a dead run, removed (with their pending deliveries).
    public var removedConsumers = 0

    @_spi(SignalStoreDriver)
    public init() {}
}

/// A completed delivery, as kept in the store's history (`SignalStore.completions`).
@_spi(SignalStoreDriver)
public struct CompletionRecord: Sendable, Hashable {
    /// The delivery completed.
    @_spi(SignalStoreDriver) public var key: DeliveryKey
    /// The run that completed it, and its attempt.
    @_spi(SignalStoreDriver) public var runID: String
    @_spi(SignalStoreDriver) public var attempt: Int

    @_spi(SignalStoreDriver)
    public init(key: DeliveryKey, runID: String, attempt: Int) {
        self.key = key
        self.runID = runID
        self.attempt = attempt
    }
}

/// The runs a store knows of for one component (`SignalStore.runs(of:)`).
@_spi(SignalStoreDriver)
public struct RunsOfComponent: Sendable, Hashable {
    /// The runs recorded (alive, or gone and not yet taken over).
    @_spi(SignalStoreDriver) public var recorded: Set<String>
    /// The runs that consumers of the component name.
    @_spi(SignalStoreDriver) public var namedByConsumers: Set<String>
    /// The runs that own deliveries of the component.
    @_spi(SignalStoreDriver) public var owningDeliveries: Set<String>

    @_spi(SignalStoreDriver)
    public init(recorded: Set<String>, namedByConsumers: Set<String>, owningDeliveries: Set<String>) {
        self.recorded = recorded
        self.namedByConsumers = namedByConsumers
        self.owningDeliveries = owningDeliveries
    }

    /// Every run named, but `runID`, in order; a work queue, named as its consumers' and deliveries'
    /// owner, is not a run.
    package func all(besides runID: String) -> [String] {
        recorded.union(namedByConsumers).union(owningDeliveries).subtracting([runID]).filter { !WorkQueue.isQueue($0) }
            .sorted()
    }
}

/// A run's deliveries not yet completed (`SignalStore.runStatus(of:)`).
@_spi(SignalStoreDriver)
public struct RunStatus: Sendable, Hashable {
    /// The run's deliveries that are pending or claimed (not dead).
    @_spi(SignalStoreDriver) public var openDeliveries: Int
    /// When the earliest of its pending deliveries is due, if it has any.
    @_spi(SignalStoreDriver) public var nextDue: Date?
    /// Whether its component's work queue has a delivery that is pending or claimed, when asked for.
    /// Not a count: a read of a run's status comes after every delivery pass, and counting a long
    /// queue would cost as much as the queue is long.
    @_spi(SignalStoreDriver) public var queueHasDeliveries: Bool
    /// When the earliest pending delivery of its component's work queue is due, when asked for.
    @_spi(SignalStoreDriver) public var queueNextDue: Date?

    @_spi(SignalStoreDriver)
    public init(openDeliveries: Int, nextDue: Date?, queueHasDeliveries: Bool = false, queueNextDue: Date? = nil) {
        self.openDeliveries = openDeliveries
        self.nextDue = nextDue
        self.queueHasDeliveries = queueHasDeliveries
        self.queueNextDue = queueNextDue
    }
}

/// What a store holds (e.g. for a status page, or to check that nothing is left behind).
public struct SignalStoreStatistics: Sendable, Hashable {
    /// Runs recorded (alive, or gone and not yet taken over).
    public var runs = 0
    /// Registered consumers.
    public var consumers = 0
    /// Signal records: signals with consumers, or kept for late ones.
    public var signals = 0
    /// Deliveries waiting to run (or for a retry), running, and parked dead.
    public var pendingDeliveries = 0
    public var claimedDeliveries = 0
    public var deadDeliveries = 0
    /// Completions in the history.
    public var completions = 0

    /// Empty statistics.
    @_spi(SignalStoreDriver)
    public init() {}
}
