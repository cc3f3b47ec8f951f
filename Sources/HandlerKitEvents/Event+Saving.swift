import HandlerKit

/// How an event's handler subscriptions become saved entries and back (see `SubscriptionArchive`).
extension Event {
    /// The saved form of the handler and dormant subscriptions, in order: a handler as
    /// `{"background","handler","locked","oneTime"}`, a dormant one verbatim.
    func savedSubscriptions() -> [HandlerValue] {
        let entries = state.withLock { state in
            state.entries.map { ($0, $0.flags.isLocked) }
        }
        return entries.compactMap { subscription, isLocked in
            switch subscription.kind {
            case .closure: nil
            case .dormant(let saved, _): saved
            case .handler(let handler):
                .object([
                    "background": .bool(subscription.isBackground),
                    "handler": handler.documentValue(),
                    "locked": .bool(isLocked),
                    "oneTime": .bool(subscription.isOneTime),
                ])
            }
        }
    }

    /// Appends the saved subscriptions after the current subscribers, in their saved order. One
    /// that cannot be restored is appended as a dormant subscription (kept verbatim) and reported.
    /// Not `changing`: only reports what restoring would do, adding nothing.
    func restore(
        _ saved: [HandlerValue], path: String, registry: HandlerRegistry, changing: Bool = true
    ) -> (restored: Int, problems: [EventError]) {
        var restored = 0
        var problems: [EventError] = []
        for (index, value) in saved.enumerated() {
            let entryPath = "\(path)[\(index)]"
            do throws(EventError) {
                let entry = try SavedSubscription(value, path: entryPath, registry: registry)
                let arguments = try eventArguments(for: entry.handler, inBackground: entry.background)
                if changing {
                    add(
                        .handler(entry.handler), .handler(entry.handler, arguments),
                        once: entry.oneTime, background: entry.background, locked: entry.locked)
                }
                restored += 1
            } catch {
                let reason: EventError =
                    switch error {
                    case .dormantSubscription: error
                    default: .dormantSubscription(path: entryPath, reason: error.description)
                    }
                if changing { add(.dormant(saved: value, reason: reason), .dormant, once: false, background: false) }
                problems.append(reason)
            }
        }
        return (restored, problems)
    }
}

/// One saved handler subscription, read and checked.
struct SavedSubscription {
    var handler: Handler
    var oneTime: Bool
    var background: Bool
    var locked: Bool

    static let members: Set<String> = ["background", "handler", "locked", "oneTime"]

    init(_ value: HandlerValue, path: String, registry: HandlerRegistry) throws(EventError) {
        guard case .object(let members) = value else {
            throw .dormantSubscription(path: path, reason: "expected an object, found \(value.kindDescription)")
        }
        if let unknown = members.keys.sorted().first(where: { !Self.members.contains($0) }) {
            throw .dormantSubscription(
                path: "\(path).\(unknown)",
                reason: "unknown member; a saved subscription has background, handler, locked, oneTime")
        }
        func flag(_ name: String) throws(EventError) -> Bool {
            switch members[name] {
            case .bool(let flag)?: return flag
            case nil: throw .dormantSubscription(path: "\(path).\(name)", reason: "missing")
            case let other?:
                throw .dormantSubscription(
                    path: "\(path).\(name)", reason: "expected a bool, found \(other.kindDescription)")
            }
        }
        oneTime = try flag("oneTime")
        background = try flag("background")
        locked = try flag("locked")
        guard let document = members["handler"] else {
            throw .dormantSubscription(path: "\(path).handler", reason: "missing")
        }
        do {
            handler = try Handler(documentValue: document, registry: registry)
        } catch {
            throw .dormantSubscription(path: "\(path).handler", reason: error.description)
        }
    }
}
