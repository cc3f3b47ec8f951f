import HandlerKit

/// An event that a type (class-level) or an object (instance-level) declares, with a typed payload
/// (`Void` for none). Subscribers — closures, named or not, and serializable `Handler`s — receive a
/// `SentEvent` with the sender, the data and the event's name.
///
/// ```swift
/// final class Player: EventSource {
///     static let started = Event<Player.Type, String>("started")       // one per type
///     let eventStorage = EventStorage()
///     var volumeChanged: Event<Player, Double> { event("volumeChanged") }  // one per object
/// }
///
/// Player.started.subscribe(named: "log") { event in print(event.data) }
/// try Player.started.subscribe(Player.logHandler(prefix: "▶"))   // a @handler taking `data`
/// Player.started.send("intro.mp3")
/// ```
///
/// **Order.** Subscribers run in subscription order, handlers and closures interleaved as they were
/// subscribed; there are no priorities. A background subscriber's turn starts its delivery on its
/// own serial queue and the send moves on. A send from inside a subscriber (nested send) delivers to
/// every subscriber first; then the outer send goes on with its remaining subscribers (depth first,
/// as `NotificationCenter.post`). Subscribers added during a send receive the next send; a lock or
/// removal made during a send is honoured by the subscribers not yet called.
///
/// **Concurrency.** Every method may be called from any thread and from inside a subscriber: no
/// subscriber runs while the event's internal lock is held. A one-time subscriber is delivered to
/// at most once, whatever the number of concurrent or nested sends.
public final class Event<Sender: Sendable, Payload: Sendable>: Sendable {
    /// The event's name, e.g. `started`: `SentEvent.eventName` and a handler's `eventName`.
    public let name: String
    /// The key its handler subscriptions are saved under: `Module.Type.name` for a class-level
    /// event, `Module.Type[identity].name` for an instance event whose object has an
    /// `eventIdentity`, else `nil` (not persistable).
    public let persistenceKey: String?
    @usableFromInline let sender: SenderReference
    @usableFromInline let state = Locked(State())

    // The sending path is `@inlinable` (with what it touches `@usableFromInline`) so that it is
    // specialized for the client's sender and payload types instead of running through metadata.

    @usableFromInline
    struct State {
        /// Subscribers in subscription order (removed ones are taken out).
        @usableFromInline var entries: [Entry] = []
    }

    /// A subscriber: its `Subscription` with how to deliver to it (one object, so a send retains one
    /// reference per subscriber).
    @usableFromInline
    typealias Entry = Subscriber<Sender, Payload>

    /// The sender: the owning type, or the object, held weakly (`nil` once it is freed).
    @usableFromInline
    enum SenderReference: Sendable {
        case type(Sender)
        case object(@Sendable () -> Sender?)

        @inlinable
        var value: Sender? {
            switch self {
            case .type(let sender): sender
            case .object(let load): load()
            }
        }
    }

    @usableFromInline
    enum Delivery: Sendable {
        case closure(@Sendable (SentEvent<Sender, Payload>) throws -> Void)
        case backgroundClosure(@Sendable (SentEvent<Sender, Payload>) async throws -> Void)
        case handler(Handler, EventArguments)
        case dormant
    }

    init(name: String, persistenceKey: String?, sender: SenderReference) {
        self.name = name
        self.persistenceKey = persistenceKey
        self.sender = sender
    }

    /// A class-level event of `Owner`: declare it as a `static let` of the type.
    ///
    /// - Parameters:
    ///   - name: the event's name, e.g. `started`.
    ///   - owner: the type that declares it (inferred from the event's type).
    ///   - key: the key its subscriptions are saved under; by default `Module.Owner.name`. Give one
    ///     that stays the same if you may rename the type.
    public convenience init<Owner>(_ name: String, of owner: Owner.Type = Owner.self, key: String? = nil)
    where Sender == Owner.Type {
        self.init(
            name: name, persistenceKey: key ?? "\(String(reflecting: Owner.self)).\(name)", sender: .type(Owner.self))
    }

    /// The event's key if it has one, else its name: how errors and failures name it.
    var displayName: String { persistenceKey ?? name }

    // MARK: Subscribing

    /// Subscribes a closure that runs on the sender's thread, in order with the other subscribers.
    ///
    /// - Parameters:
    ///   - name: lets `lockClosures(named:)` and `removeClosures(named:)` find it; several closures may
    ///     share a name or have none.
    ///   - once: deliver at most once, then remove it.
    ///   - body: the subscriber; what it throws goes to `EventErrorHook` (or to `sendAndWait`).
    @discardableResult
    public func subscribe(
        named name: String? = nil, once: Bool = false,
        _ body: @escaping @Sendable (SentEvent<Sender, Payload>) throws -> Void
    ) -> Subscription {
        add(.closure(name: name), .closure(body), once: once, background: false)
    }

    /// Subscribes a closure, possibly `async`, that runs off the sender's thread. Deliveries to it
    /// keep their send order: each starts after the previous one ended.
    @discardableResult
    public func subscribeInBackground(
        named name: String? = nil, once: Bool = false,
        _ body: @escaping @Sendable (SentEvent<Sender, Payload>) async throws -> Void
    ) -> Subscription {
        add(.closure(name: name), .backgroundClosure(body), once: once, background: true)
    }

    /// Subscribes a serializable handler. On delivery it is called with the call-time values
    /// `event` (the `SentEvent`), `data`, `sender` and `eventName`, of which it receives those it
    /// declares, next to its bound values.
    ///
    /// - Parameters:
    ///   - handler: the handler to call; its bound values stay as they are.
    ///   - once: deliver at most once, then remove it.
    ///   - inBackground: run it off the sender's thread, in send order; required for an `async` handler.
    /// - Throws: checked now, not at send time: `EventError.missingArgument` for a mandatory
    ///   parameter that neither a bound value nor the event supplies, `.argumentTypeMismatch` for a
    ///   parameter named `data`, `sender`, `event` or `eventName` whose type cannot take what the
    ///   event supplies, `.requiresBackground` for an `async` handler on the sender's thread.
    @discardableResult
    public func subscribe(
        _ handler: Handler, once: Bool = false, inBackground: Bool = false
    ) throws(EventError) -> Subscription {
        let arguments = try eventArguments(for: handler, inBackground: inBackground)
        return add(.handler(handler), .handler(handler, arguments), once: once, background: inBackground)
    }

    @discardableResult
    func add(
        _ kind: Subscription.Kind, _ delivery: Delivery, once: Bool, background: Bool, locked: Bool = false
    ) -> Subscription {
        let entry = Entry(kind: kind, delivery: delivery, isOneTime: once, isBackground: background, owner: self)
        entry.flags.isLocked = locked
        state.withLock { $0.entries.append(entry) }
        return entry
    }

    // MARK: Sending

    /// Delivers `data` to every unlocked subscriber, in subscription order, and returns when the
    /// subscribers on this thread have run (background ones run later). What a subscriber throws
    /// goes to `EventErrorHook`; the others still run. An instance event whose object is freed
    /// delivers nothing.
    @inlinable
    public func send(_ data: Payload) {
        guard let sender = sender.value else { return }
        let sent = SentEvent(sender: sender, data: data, eventName: name)
        let (snapshot, first) = state.withLock { state in
            (state.entries, Self.claim(state.entries, from: 0, in: &state))
        }
        var next = first
        while let index = next {
            if let failure = Self.runWithoutWaiting(snapshot[index], sent) { EventErrorHook.report(failure) }
            next = index + 1 < snapshot.count ? state.withLock { Self.claim(snapshot, from: index + 1, in: &$0) } : nil
        }
    }

    /// Delivers `data` like `send(_:)`, waits until every delivery — background ones included — has
    /// ended, and returns what the subscribers threw, in subscription order (not given to `EventErrorHook`).
    @discardableResult
    public func sendAndWait(_ data: Payload) async -> [SubscriberFailure] {
        guard let sender = sender.value else { return [] }
        let sent = SentEvent(sender: sender, data: data, eventName: name)
        let (snapshot, first) = state.withLock { state in
            (state.entries, Self.claim(state.entries, from: 0, in: &state))
        }
        var outcomes: [Task<SubscriberFailure?, Never>?] = []
        var failures: [SubscriberFailure?] = []
        var next = first
        while let index = next {
            let entry = snapshot[index]
            if let queue = entry.queue {
                outcomes.append(queue.enqueue { await Self.runInBackground(entry, sent) })
                failures.append(nil)
            } else {
                outcomes.append(nil)
                failures.append(Self.runOnThisThread(entry, sent))
            }
            next = index + 1 < snapshot.count ? state.withLock { Self.claim(snapshot, from: index + 1, in: &$0) } : nil
        }
        var reported: [SubscriberFailure] = []
        for (outcome, failure) in zip(outcomes, failures) {
            if let failure = await outcome?.value ?? failure { reported.append(failure) }
        }
        return reported
    }

    /// The index of the first subscriber from `start` that is to be delivered to now (not removed,
    /// not locked, not dormant); a one-time subscriber is taken out, so no other send delivers to it.
    @inlinable
    static func claim(_ entries: [Entry], from start: Int, in state: inout State) -> Int? {
        var index = start
        while index < entries.count {
            let entry = entries[index]
            let flags = entry.flags
            if !flags.isRemoved, !flags.isLocked, !entry.isDormant {
                if entry.isOneTime {
                    entry.flags.isRemoved = true
                    state.entries.removeAll { $0 === entry }
                }
                return index
            }
            index += 1
        }
        return nil
    }

    /// Runs a foreground subscriber now, or queues a background one that reports to the hook.
    @inlinable
    static func runWithoutWaiting(_ entry: Entry, _ sent: SentEvent<Sender, Payload>) -> SubscriberFailure? {
        if entry.queue != nil {
            enqueueWithoutWaiting(entry, sent)
            return nil
        }
        if entry.isForegroundClosure {
            do {
                try entry.closure(sent)
                return nil
            } catch {
                return SubscriberFailure(eventName: sent.eventName, subscription: entry, error: error)
            }
        }
        return runOnThisThread(entry, sent)
    }

    /// Queues a background delivery whose failure goes to the hook.
    @usableFromInline
    static func enqueueWithoutWaiting(_ entry: Entry, _ sent: SentEvent<Sender, Payload>) {
        entry.queue?.enqueue {
            if let failure = await runInBackground(entry, sent) { EventErrorHook.report(failure) }
            return nil
        }
    }

    @inlinable
    static func runOnThisThread(_ entry: Entry, _ sent: SentEvent<Sender, Payload>) -> SubscriberFailure? {
        do {
            switch entry.delivery {
            case .closure(let body): try body(sent)
            case .handler(let handler, let arguments): try handler.callSynchronously(arguments.callArguments(sent))
            case .backgroundClosure, .dormant: break
            }
            return nil
        } catch {
            return SubscriberFailure(eventName: sent.eventName, subscription: entry, error: error)
        }
    }

    @usableFromInline
    static func runInBackground(_ entry: Entry, _ sent: SentEvent<Sender, Payload>) async -> SubscriberFailure? {
        do {
            switch entry.delivery {
            case .closure(let body): try body(sent)
            case .backgroundClosure(let body): try await body(sent)
            case .handler(let handler, let arguments): try await handler.call(arguments.callArguments(sent))
            case .dormant: break
            }
            return nil
        } catch {
            return SubscriberFailure(eventName: sent.eventName, subscription: entry, error: error)
        }
    }
}

extension Event where Payload == Void {
    /// Sends the event without data.
    public func send() { send(()) }

    /// Sends the event without data and waits for every delivery (see `sendAndWait(_:)`).
    @discardableResult
    public func sendAndWait() async -> [SubscriberFailure] { await sendAndWait(()) }
}
