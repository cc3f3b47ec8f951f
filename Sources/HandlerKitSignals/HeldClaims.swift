/// The deliveries a center holds claimed for its run (claimed, and not yet settled or given back),
/// and whether a claim of the run may have been lost: what its next `ClaimRequest` says.
///
/// A claim is lost when the store applied it but the center never learned of it (a claim whose
/// answer did not arrive), or when the center could not settle it (a completion or a release that
/// failed for a reason other than a busy store). Nothing would run or settle such a delivery until
/// the run ends; so after such a failure the next claim takes back the run's claims that are not
/// held here, as the next attempt. Kept in the center, the rule is the same for every store.
package struct HeldClaims: Sendable {
    /// The row ids of the deliveries held.
    package private(set) var rows: Set<Int64> = []
    /// Whether a claim, completion or release failed since the run began.
    package private(set) var mayBeLost = false
    /// The owners (the run, its component's work queue) whose claims took back lost claims since the
    /// last failure: each owner's next claim after a failure does, once.
    private var reclaimed: Set<String> = []

    package init() {}

    /// The request of the run's next claim of `owner`'s deliveries. It takes back the run's lost
    /// claims of `owner` when one may have been lost since its last such claim, and counts on doing
    /// so: a claim that then fails calls ``failed()`` again.
    package mutating func request(
        runID: String, owner: String, limit: Int, startingFirst: Bool, startingAll: Bool = false
    ) -> ClaimRequest {
        let reclaiming = mayBeLost && reclaimed.insert(owner).inserted
        return ClaimRequest(
            runID: runID, owner: owner, limit: limit, startingFirst: startingFirst, startingAll: startingAll,
            inProgress: reclaiming ? rows : [], reclaimingLost: reclaiming)
    }

    /// A claim returned these deliveries: they are held until settled.
    package mutating func claimed(_ deliveries: [ClaimedDelivery]) {
        rows.formUnion(deliveries.map(\.rowID))
    }

    /// The delivery was settled, given back, or found no longer claimed by the run: it is not held.
    package mutating func settled(_ delivery: ClaimedDelivery) {
        rows.remove(delivery.rowID)
    }

    /// A claim, completion or release failed: a delivery may be claimed by the run with no one
    /// holding it.
    package mutating func failed() {
        mayBeLost = true
        reclaimed = []
    }

    /// The center carries on as a new run: the old run's claims are the store's to give back.
    package mutating func runReplaced() {
        rows = []
        mayBeLost = false
        reclaimed = []
    }
}
