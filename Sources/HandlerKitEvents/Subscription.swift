import HandlerKit

/// One subscriber of an event, as returned when subscribing: lock, unlock or remove it with the
/// event's methods or its own. Two subscriptions are equal only if they are the same subscription,
/// so two handlers of the same function with different bound values are told apart.
public class Subscription: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// What a subscriber is.
    public enum Kind: Sendable {
        /// A closure, with the name it was given (several may share a name, or have none).
        case closure(name: String?)
        /// A serializable handler.
        case handler(Handler)
        /// A saved subscription that could not be restored: `saved` is kept verbatim and written
        /// again by the next save; `reason` says why it is not active. Never delivered to.
        case dormant(saved: HandlerValue, reason: EventError)
    }

    public let kind: Kind
    /// Delivered to at most once, then removed.
    public let isOneTime: Bool
    /// Runs off the sender's thread, in send order.
    public let isBackground: Bool

    /// The event that holds it; `nil` once the event is gone.
    weak var owner: (any SubscriptionOwner)?
    /// Guarded by the owner's lock (so the dynamic exclusivity check, which a send would make for every
    /// subscriber, is left out).
    @exclusivity(unchecked) @usableFromInline var flags = Flags()
    /// The serial queue of a background subscriber.
    @usableFromInline let queue: BackgroundQueue?

    @usableFromInline
    struct Flags {
        @usableFromInline var isLocked = false
        /// Removed, or a one-time subscriber that has been delivered to.
        @usableFromInline var isRemoved = false
    }

    init(kind: Kind, isOneTime: Bool, isBackground: Bool, owner: any SubscriptionOwner) {
        self.kind = kind
        self.isOneTime = isOneTime
        self.isBackground = isBackground
        self.owner = owner
        self.queue = isBackground ? BackgroundQueue() : nil
    }

    /// The closure's name, if this is a named closure.
    public var name: String? {
        if case .closure(let name) = kind { return name }
        return nil
    }

    /// The handler, if this is a handler subscription.
    public var handler: Handler? {
        if case .handler(let handler) = kind { return handler }
        return nil
    }

    /// Whether this is a dormant saved subscription.
    public var isDormant: Bool {
        if case .dormant = kind { return true }
        return false
    }

    /// Whether it is locked (skipped by sends, not removed).
    public var isLocked: Bool { owner?.readFlags(of: self).isLocked ?? false }

    /// Whether it still belongs to a live event: not removed, not a one-time subscriber already delivered to.
    public var isActive: Bool {
        guard let owner else { return false }
        return !owner.readFlags(of: self).isRemoved
    }

    /// Locks it: sends skip it until it is unlocked.
    public func lock() { owner?.setLocked(true, [self]) }

    /// Unlocks it.
    public func unlock() { owner?.setLocked(false, [self]) }

    /// Removes it from its event.
    public func remove() { owner?.remove([self]) }

    public static func == (lhs: Subscription, rhs: Subscription) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// E.g. `closure "badge" (one-time)` or `handler Handler(Player.log, bound: [prefix]) (background, locked)`.
    public var description: String {
        var text: String
        switch kind {
        case .closure(let name): text = name.map { "closure \"\($0)\"" } ?? "closure"
        case .handler(let handler): text = "handler \(handler)"
        case .dormant(_, let reason): text = "dormant subscription (\(reason))"
        }
        var traits: [String] = []
        if isOneTime { traits.append("one-time") }
        if isBackground { traits.append("background") }
        if isLocked { traits.append("locked") }
        if !traits.isEmpty { text += " (\(traits.joined(separator: ", ")))" }
        return text
    }
}

/// A subscription of an event with these types, with how to deliver to it.
@usableFromInline
final class Subscriber<Sender: Sendable, Payload: Sendable>: Subscription, @unchecked Sendable {
    @usableFromInline let delivery: Event<Sender, Payload>.Delivery
    /// Whether this is a closure subscriber on the sender's thread: the common case, whose closure
    /// (also in `delivery`) is called as `closure`, without unpacking `delivery`.
    @usableFromInline let isForegroundClosure: Bool
    @usableFromInline let closure: @Sendable (SentEvent<Sender, Payload>) throws -> Void

    init(
        kind: Kind, delivery: Event<Sender, Payload>.Delivery, isOneTime: Bool, isBackground: Bool,
        owner: any SubscriptionOwner
    ) {
        self.delivery = delivery
        if case .closure(let body) = delivery {
            isForegroundClosure = true
            closure = body
        } else {
            isForegroundClosure = false
            closure = { _ in }
        }
        super.init(kind: kind, isOneTime: isOneTime, isBackground: isBackground, owner: owner)
    }
}

/// Which subscribers a lock, unlock or removal applies to.
public struct SubscriberKinds: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Handler subscriptions.
    public static let handlers = SubscriberKinds(rawValue: 1)
    /// Closure subscriptions, named or not.
    public static let closures = SubscriberKinds(rawValue: 2)
    /// Dormant saved subscriptions (only removal applies to them).
    public static let dormant = SubscriberKinds(rawValue: 4)
    /// Every subscriber.
    public static let all: SubscriberKinds = [.handlers, .closures, .dormant]

    func contains(_ subscription: Subscription) -> Bool {
        switch subscription.kind {
        case .closure: contains(.closures)
        case .handler: contains(.handlers)
        case .dormant: contains(.dormant)
        }
    }
}

/// What a subscription asks of its event (implemented by `Event`).
protocol SubscriptionOwner: AnyObject, Sendable {
    func readFlags(of subscription: Subscription) -> Subscription.Flags
    func setLocked(_ locked: Bool, _ subscriptions: [Subscription])
    func remove(_ subscriptions: [Subscription])
}
