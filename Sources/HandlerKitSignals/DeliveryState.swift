/// Where a delivery is in its life (see <doc:HowADeliveryMoves>).
///
/// A delivery is made `pending` by a post (or by a consumer registering for a kept signal); a claim
/// makes it `claimed` by one run and counts an attempt; completing it removes it (a completion is
/// recorded instead); a failed attempt makes it `pending` again with a later due time, or `dead`
/// when retrying cannot help or the attempts are used up. A dead delivery stays until it is requeued
/// (pending again, with a fresh count of attempts). A completed delivery has no state: it is gone.
public enum DeliveryState: String, Sendable, Hashable, CaseIterable {
    /// Waiting to be claimed by the run that owns it, from its due time on.
    case pending
    /// Claimed by a run whose handler is running it (or was, when that run died).
    case claimed
    /// Parked: its handler kept throwing, cannot be rebuilt, or its record cannot be used.
    case dead
}
