/// Locking (skipping without removing), querying and removing subscribers. A change made while a
/// send is under way applies to the subscribers it has not called yet. Dormant subscriptions are
/// never locked or unlocked; removal with `.dormant` or `.all` applies to them.
extension Event: SubscriptionOwner {
    /// The live subscriptions, in subscription order (dormant ones included).
    public var subscriptions: [Subscription] {
        state.withLock { ($0.entries as [Subscription]) }
    }

    /// The locked subscriptions, in subscription order.
    public var lockedSubscriptions: [Subscription] {
        state.withLock { ($0.entries as [Subscription]).filter { $0.flags.isLocked } }
    }

    /// The unlocked, non-dormant subscriptions, in subscription order.
    public var unlockedSubscriptions: [Subscription] {
        state.withLock { ($0.entries as [Subscription]).filter { !$0.flags.isLocked && !$0.isDormant } }
    }

    /// The dormant saved subscriptions (restored from saved data but not active), in order.
    public var dormantSubscriptions: [Subscription] {
        state.withLock { ($0.entries as [Subscription]).filter(\.isDormant) }
    }

    /// Whether `subscription` is locked.
    public func isLocked(_ subscription: Subscription) -> Bool {
        readFlags(of: subscription).isLocked
    }

    /// Whether there are closures named `name` and all of them are locked.
    public func isLocked(closureNamed name: String) -> Bool {
        state.withLock { state in
            let named = (state.entries as [Subscription]).filter { $0.name == name }
            return !named.isEmpty && named.allSatisfy(\.flags.isLocked)
        }
    }

    /// The names of the locked named closures.
    public var lockedClosureNames: Set<String> {
        Set(lockedSubscriptions.compactMap(\.name))
    }

    /// The names of the unlocked named closures.
    public var unlockedClosureNames: Set<String> {
        Set(unlockedSubscriptions.compactMap(\.name))
    }

    // MARK: Locking

    /// Locks one subscription: sends skip it until it is unlocked.
    public func lock(_ subscription: Subscription) { setLocked(true, [subscription]) }

    /// Unlocks one subscription.
    public func unlock(_ subscription: Subscription) { setLocked(false, [subscription]) }

    /// Locks a set of subscriptions.
    public func lock(_ subscriptions: some Sequence<Subscription>) { setLocked(true, Array(subscriptions)) }

    /// Unlocks a set of subscriptions.
    public func unlock(_ subscriptions: some Sequence<Subscription>) { setLocked(false, Array(subscriptions)) }

    /// Locks every closure named `name` (no handler, however its function is named).
    public func lockClosures(named name: String) { setLocked(true) { $0.name == name } }

    /// Unlocks every closure named `name`.
    public func unlockClosures(named name: String) { setLocked(false) { $0.name == name } }

    /// Locks every closure whose name is in `names`.
    public func lockClosures(named names: Set<String>) { setLocked(true) { $0.name.map(names.contains) ?? false } }

    /// Unlocks every closure whose name is in `names`.
    public func unlockClosures(named names: Set<String>) { setLocked(false) { $0.name.map(names.contains) ?? false } }

    /// Locks every subscriber of the given kinds (all by default).
    public func lockAll(_ kinds: SubscriberKinds = .all) { setLocked(true) { kinds.contains($0) } }

    /// Unlocks every subscriber of the given kinds (all by default).
    public func unlockAll(_ kinds: SubscriberKinds = .all) { setLocked(false) { kinds.contains($0) } }

    // MARK: Removing

    /// Removes one subscription.
    public func remove(_ subscription: Subscription) { remove([subscription]) }

    /// Removes every closure named `name`.
    public func removeClosures(named name: String) { remove { $0.name == name } }

    /// Removes every subscriber of the given kinds (all by default).
    public func removeAll(_ kinds: SubscriberKinds = .all) { remove { kinds.contains($0) } }

    // MARK: SubscriptionOwner

    func readFlags(of subscription: Subscription) -> Subscription.Flags {
        state.withLock { _ in subscription.owner === self ? subscription.flags : Subscription.Flags(isRemoved: true) }
    }

    func setLocked(_ locked: Bool, _ subscriptions: [Subscription]) {
        let chosen = Set(subscriptions.map(ObjectIdentifier.init))
        setLocked(locked) { chosen.contains(ObjectIdentifier($0)) }
    }

    func remove(_ subscriptions: [Subscription]) {
        let chosen = Set(subscriptions.map(ObjectIdentifier.init))
        remove { chosen.contains(ObjectIdentifier($0)) }
    }

    private func setLocked(_ locked: Bool, where chosen: (Subscription) -> Bool) {
        state.withLock { state in
            for entry in state.entries where !entry.isDormant && chosen(entry) {
                entry.flags.isLocked = locked
            }
        }
    }

    private func remove(where chosen: (Subscription) -> Bool) {
        // The removed entries are returned, so they are released after the lock: their closures'
        // captures may run deinits, which may use this event.
        _ = state.withLock { state -> [Entry] in
            let removed = state.entries.filter { chosen($0) }
            for entry in removed { entry.flags.isRemoved = true }
            state.entries.removeAll { $0.flags.isRemoved }
            return removed
        }
    }
}
