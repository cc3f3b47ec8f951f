import HandlerKit

/// An object with instance-level events: one event per object and name, created on first use,
/// gone with the object.
///
/// ```swift
/// final class Download: EventSource {
///     let eventStorage = EventStorage()
///     var progress: Event<Download, Double> { event("progress") }
/// }
/// download.progress.subscribe { event in print(event.sender, event.data) }
/// download.progress.send(0.5)
/// ```
///
/// The object owns its events (through `eventStorage`) and each event refers to the object
/// weakly: subscribing, even a closure, never keeps the object alive; when the object is freed, its
/// events and their subscribers are freed with it, and a new object — even at the same address —
/// starts with none.
public protocol EventSource: AnyObject, Sendable {
    /// Where the object's events live. Declare it as `let eventStorage = EventStorage()`.
    var eventStorage: EventStorage { get }

    /// An identity that is the same in every process (e.g. an account id), so the handler
    /// subscriptions of the object's events can be saved and restored. `nil` (the default): they cannot.
    var eventIdentity: String? { get }
}

extension EventSource {
    public var eventIdentity: String? { nil }

    /// The object's event named `name` with payload `Payload`, created on first use.
    public func event<Payload: Sendable>(_ name: String, _ payload: Payload.Type = Payload.self) -> Event<Self, Payload>
    {
        let key = EventStorage.Key(name: name, payload: ObjectIdentifier(Payload.self))
        if let existing = eventStorage.events.withLock({ $0[key] as? Event<Self, Payload> }) { return existing }
        // Read outside the lock: `eventIdentity` is the user's code.
        let persistenceKey = eventIdentity.map { "\(String(reflecting: Self.self))[\($0)].\(name)" }
        return eventStorage.events.withLock { events in
            if let existing = events[key] as? Event<Self, Payload> { return existing }
            let created = Event<Self, Payload>(
                name: name, persistenceKey: persistenceKey, sender: .object { [weak self] in self })
            events[key] = created
            return created
        }
    }

    /// Removes the object's events named `name` with all their subscribers.
    public func removeEvent(named name: String) {
        eventStorage.remove { $0.name == name }
    }

    /// Removes all the object's events with all their subscribers (AFFEvent's `AFFRemoveAllEvents`).
    public func removeAllEvents() {
        eventStorage.remove { _ in true }
    }
}

/// The instance-level events of one object (see `EventSource`).
public final class EventStorage: Sendable {
    struct Key: Hashable {
        let name: String
        let payload: ObjectIdentifier
    }

    let events = Locked<[Key: any RemovableEvent]>([:])

    public init() {}

    func remove(where chosen: (Key) -> Bool) {
        let removed = events.withLock { events in
            let removed = events.filter { chosen($0.key) }
            for key in removed.keys { events[key] = nil }
            return removed
        }
        for event in removed.values { event.removeAll(.all) }
    }
}

/// An event whose subscribers can be removed without knowing its types.
protocol RemovableEvent: AnyObject, Sendable {
    func removeAll(_ kinds: SubscriberKinds)
}

extension Event: RemovableEvent {}
