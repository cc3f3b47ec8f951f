import HandlerKit

/// Every error HandlerKitEvents throws or reports. Each message says what was wrong and where: the
/// event, the handler and its parameter, or the place in a saved subscriptions document.
public enum EventError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A handler has a mandatory parameter that neither its bound values nor the event supply.
    case missingArgument(event: String, handler: String, argument: String, expectedType: String)
    /// A handler's parameter cannot take what the event supplies under that name (`data`, `sender`, …).
    case argumentTypeMismatch(
        event: String, handler: String, argument: String, expectedType: String, suppliedType: String)
    /// An `async` handler was subscribed to run on the sender's thread; subscribe it `inBackground`.
    case requiresBackground(event: String, handler: String)
    /// An instance-level event was given to an archive but its object has no `eventIdentity`.
    case notPersistable(event: String)
    /// Two events given to one archive have the same key.
    case duplicateEvent(key: String)
    /// The saved subscriptions are not valid JSON (or too large or too deep); `underlying` has the
    /// line, column and byte offset. Nothing was restored.
    case malformedDocument(underlying: HandlerError)
    /// The saved subscriptions were written in a format version this library does not read. Nothing was restored.
    case unsupportedVersion(found: String, supported: Int)
    /// The saved subscriptions document has the wrong shape at `path`. Nothing was restored.
    case invalidDocument(path: String, reason: String)
    /// The saved document has subscriptions of an event this archive does not know. They are kept
    /// as they were and written again by the next save.
    case unknownEvent(key: String, path: String)
    /// A saved subscription could not be restored (e.g. its handler id is no longer registered); it
    /// is kept dormant, verbatim, and written again by the next save.
    case dormantSubscription(path: String, reason: String)
    /// The saved subscriptions file could not be read or written.
    case fileError(path: String, reason: String)

    public var description: String {
        switch self {
        case .missingArgument(let event, let handler, let argument, let expectedType):
            "event '\(event)': handler '\(handler)' has a mandatory parameter '\(argument)' of type \(expectedType) that is neither bound nor supplied by the event (it supplies event, data, sender, eventName)"
        case .argumentTypeMismatch(let event, let handler, let argument, let expectedType, let suppliedType):
            "event '\(event)': handler '\(handler)' parameter '\(argument)' expects \(expectedType) but the event supplies \(suppliedType)"
        case .requiresBackground(let event, let handler):
            "event '\(event)': handler '\(handler)' is async; subscribe it with inBackground: true"
        case .notPersistable(let event):
            "event '\(event)' belongs to an object without an eventIdentity, so its subscriptions cannot be saved"
        case .duplicateEvent(let key):
            "two events given to the archive have the key '\(key)'"
        case .malformedDocument(let underlying):
            "saved subscriptions are not readable: \(underlying)"
        case .unsupportedVersion(let found, let supported):
            "saved subscriptions have version \(found); this library reads version \(supported)"
        case .invalidDocument(let path, let reason):
            "not a saved subscriptions document at '\(path)': \(reason)"
        case .unknownEvent(let key, let path):
            "saved subscriptions at '\(path)' belong to event '\(key)', which this archive does not know; kept for the next save"
        case .dormantSubscription(let path, let reason):
            "saved subscription at '\(path)' is kept dormant: \(reason)"
        case .fileError(let path, let reason):
            "saved subscriptions file \(path): \(reason)"
        }
    }
}
