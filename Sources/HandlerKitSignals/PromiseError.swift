import Foundation

/// Why a promise operation failed.
public enum PromiseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store failed (see ``SignalError``); nothing was changed unless the error says so.
    case store(SignalError)
    /// No promise has this id: it was never made in this store, or it was removed after its retention.
    case unknownPromise(id: String)
    /// A promise with this id exists already (``SignalCenter/makePromise(of:id:fallback:limitedToComponent:deadline:retention:awaitedWithin:)``).
    case promiseExists(id: String)
    /// The id, the fallback handler or another argument cannot be used; nothing was stored.
    case invalidPromise(id: String, reason: String)
    /// The value or rejection cannot settle the promise: it cannot be encoded, or it nests too
    /// deep or is too large for the fallback handler's delivery to read (the error says which, and
    /// where); nothing was stored.
    case invalidSettlement(id: String, SignalError)
    /// The promise was settled before, under another settlement key; nothing changed.
    case alreadySettled(id: String, firstKey: String, firstOutcome: PromiseOutcome, settledAt: Date)
    /// The promise holds values of another type than the one asked for.
    case wrongValueType(id: String, stored: String, requested: String)
    /// The stored value cannot be read as the promise's value type.
    case undecodableValue(id: String, type: String, reason: String)
    /// The promise may only be awaited by processes of another component.
    case wrongComponent(id: String, limitedTo: String, awaitedFrom: String)
    /// The promise was rejected.
    case rejected(id: String, PromiseRejection)
    /// The promise timed out at its deadline.
    case timedOut(id: String, deadline: Date)
    /// The promise was cancelled (``SignalCenter/cancel(_:settlementKey:)``).
    case cancelled(id: String)
    /// The settlement was consumed by the promise's fallback handler (or by another waiting process)
    /// before this process awaited it.
    case consumedElsewhere(id: String, outcome: PromiseOutcome)
    /// The task awaiting the promise was cancelled; the promise is unchanged.
    case waitCancelled(id: String)

    public var description: String {
        switch self {
        case .store(let error): "\(error)"
        case .unknownPromise(let id):
            "no promise '\(id)' in the store: it was never made there, or it was removed after its retention (make it with a longer retention to re-attach later)"
        case .promiseExists(let id):
            "a promise '\(id)' exists already; re-attach to it with DurablePromise(id:) instead"
        case .invalidPromise(let id, let reason): "promise '\(id)' cannot be made: \(reason)"
        case .invalidSettlement(let id, let error):
            "promise '\(id)' cannot be settled with this value; nothing was stored: \(error)"
        case .alreadySettled(let id, let key, let outcome, let date):
            "promise '\(id)' was settled before (\(outcome.rawValue), settlement key '\(key)', at \(date)); a settlement under another key changes nothing"
        case .wrongValueType(let id, let stored, let requested):
            "promise '\(id)' holds values of type \(stored), not \(requested): re-attach to it as DurablePromise<\(stored)>"
        case .undecodableValue(let id, let type, let reason):
            "the value of promise '\(id)' cannot be read as \(type): \(reason)"
        case .wrongComponent(let id, let limitedTo, let awaitedFrom):
            "promise '\(id)' may only be awaited by processes of component '\(limitedTo)', not '\(awaitedFrom)'"
        case .rejected(let id, let rejection): "promise '\(id)' was \(rejection)"
        case .timedOut(let id, let deadline): "promise '\(id)' timed out at its deadline, \(deadline)"
        case .cancelled(let id): "promise '\(id)' was cancelled"
        case .consumedElsewhere(let id, let outcome):
            "promise '\(id)' was settled (\(outcome.rawValue)) and its settlement consumed by its fallback handler or another waiting process before this one awaited it"
        case .waitCancelled(let id): "the task awaiting promise '\(id)' was cancelled; the promise is unchanged"
        }
    }
}
