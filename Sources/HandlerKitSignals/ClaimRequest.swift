/// What a center asks of `SignalStore.claim(_:)`: which run claims, how many deliveries, whether
/// the first (or every one) is marked started with the claim, and whether the run's lost claims are taken back.
///
/// A request is a value rather than a list of parameters so that the core can ask more of a claim
/// later (a new property with a default) without breaking a store's source.
@_spi(SignalStoreDriver)
public struct ClaimRequest: Sendable, Hashable {
    /// The run that claims.
    @_spi(SignalStoreDriver) public var runID: String
    /// Whose due deliveries are claimed: the run's own (its id, the default), or those of its
    /// component's work queue (the owner its queue's deliveries record).
    @_spi(SignalStoreDriver) public var owner: String
    /// At most this many deliveries.
    @_spi(SignalStoreDriver) public var limit: Int
    /// Whether the first delivery, in `ClaimedDelivery.runningOrder(_:)`, is marked started in the
    /// same transaction, exactly as `SignalStore.start(_:)` does (`ClaimedBatch.firstStart`).
    @_spi(SignalStoreDriver) public var startingFirst: Bool
    /// Whether every delivery claimed is marked started in the same transaction, exactly as
    /// `SignalStore.start(_:)` does (`ClaimedBatch.allStarted`): a work queue's workers start them
    /// all at once.
    @_spi(SignalStoreDriver) public var startingAll: Bool
    /// The row ids of the run's deliveries that the center still holds (claimed and not yet settled:
    /// their handlers run, wait to run, or wait for a task that awaits their promise): a claim that
    /// takes back lost claims (``reclaimingLost``) leaves them alone.
    @_spi(SignalStoreDriver) public var inProgress: Set<Int64>
    /// Whether the run's claims that are not ``inProgress`` are claimed again as well (next attempt):
    /// an earlier claim or settlement of the run failed, so a delivery may have stayed claimed by the
    /// run with no one to run or settle it (a claim whose answer was lost, a completion that failed).
    /// The center asks for this once after such a failure; looking for them costs a scan of the
    /// run's claims.
    @_spi(SignalStoreDriver) public var reclaimingLost: Bool

    @_spi(SignalStoreDriver)
    public init(
        runID: String, owner: String? = nil, limit: Int, startingFirst: Bool, startingAll: Bool = false,
        inProgress: Set<Int64> = [], reclaimingLost: Bool = false
    ) {
        self.runID = runID
        self.owner = owner ?? runID
        self.limit = limit
        self.startingFirst = startingFirst
        self.startingAll = startingAll
        self.inProgress = inProgress
        self.reclaimingLost = reclaimingLost
    }

    /// Whether the request takes the delivery in row `rowID`, owned by `ownerRun`, in state `state`
    /// and claimed by `claimedBy`: a delivery of ``owner``, pending and `isDue`, or, when
    /// ``reclaimingLost``, claimed by the run and not ``inProgress``. (The SQL stores say the same in
    /// their statements.)
    package func takes(
        rowID: Int64, ownerRun: String, state: DeliveryState, claimedBy: String?, isDue: Bool
    ) -> Bool {
        guard ownerRun == owner else { return false }
        switch state {
        case .pending: return isDue
        case .claimed: return reclaimingLost && claimedBy == runID && !inProgress.contains(rowID)
        case .dead: return false
        }
    }
}
