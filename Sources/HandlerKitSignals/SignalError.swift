/// Every error HandlerKitSignals throws. Each message says what went wrong and where: the store's
/// file, the operation, the signal, consumer or delivery, and the table and column of a bad record.
public enum SignalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store could not be opened or created at `path`.
    case storeUnavailable(path: String, reason: String)
    /// A store's settings are wrong: `setting` (a part of a URL, such as its `port` or `sslmode`, or an
    /// environment variable, such as `PGPORT`) of `source` (the URL without its password, or the
    /// environment), and why. Nothing was opened or tried; trying again cannot help: correct the
    /// setting.
    case invalidStoreSettings(source: String, setting: String, reason: String)
    /// The database (or PostgreSQL schema) at `path` holds something other than a signal store:
    /// `found` says what. Nothing was changed; give the signal store a file (or schema) of its own.
    case notASignalStore(path: String, found: String)
    /// The store was written by a newer version of HandlerKitSignals (schema `found`); this one reads
    /// up to `supported`. Nothing was changed.
    case newerSchema(path: String, found: Int, supported: Int)
    /// Other processes held the store's write lock for longer than the busy timeout. `operation` did
    /// not happen (nothing was half written); it is safe to try again.
    case storeBusy(path: String, operation: String, waitedSeconds: Double)
    /// The store's file (or its folder) cannot be written.
    case storeReadOnly(path: String, operation: String)
    /// The disk (or the store's size limit) is full; `operation` did not happen.
    case storeFull(path: String, operation: String)
    /// The store's file is not an SQLite database or is damaged.
    case storeCorrupt(path: String, operation: String, detail: String)
    /// Any other database failure.
    case database(path: String, operation: String, detail: String)
    /// A run's lock file (which proves the run is alive) could not be created or tested.
    case runLock(path: String, reason: String)
    /// A stored record could not be read: `table`, the record's `key`, the `column` and why.
    case malformedRecord(table: String, key: String, column: String, reason: String)
    /// The handler of delivery `delivery` is not registered in this process (an app version without
    /// it, or a module not loaded). The delivery's record is intact: it is parked as dead, to be
    /// requeued by a process that registers the handler.
    case handlerNotRegistered(handler: String, delivery: String)
    /// A signal id is empty or too long.
    case invalidSignalID(String, reason: String)
    /// A payload value of `signal` could not be encoded, or uses a name HandlerKitSignals passes itself.
    case invalidPayload(signal: String, argument: String, reason: String)
    /// A payload value of `signal` nests deeper than a delivery reads: each consumer's handler is
    /// given the payload's values as bound values, inside its document's object and `bound` object,
    /// and a document may nest `limit` levels (`DecodingLimits.maximumDepth` of
    /// `DecodingLimits.default`). `path` is the first array or object too deep, from the value's name
    /// (`items[3].children[0]`). Nothing was posted.
    case payloadTooDeep(signal: String, path: String, limit: Int)
    /// The payload of `signal` is `size` bytes of JSON, over the `limit` a delivery reads
    /// (`DecodingLimits.maximumDocumentSize` of `DecodingLimits.default`); `largestValue` names its
    /// largest value. `Data` is stored as base64, a third larger than its bytes. Nothing was posted.
    case payloadTooLarge(signal: String, size: Int, limit: Int, largestValue: String)
    /// The handler given to `register` cannot be stored (e.g. it has been invalidated, or its document
    /// is over a limit a delivery reads it with).
    case invalidHandler(handler: String, reason: String)
    /// The signal center of `component` (run `runID`) has been stopped.
    case centerStopped(component: String, runID: String)
    /// A component name is empty or too long.
    case invalidComponent(String, reason: String)
    /// The store's database file at `path` is `found` (empty or missing), yet `marker`, written when
    /// the store was made, shows that a store with data existed there: its data is gone (the file was
    /// truncated, replaced or deleted). Nothing was created over it: restore the store's files from a
    /// backup, or delete `marker` to start a new, empty store at `path`.
    case storeLost(path: String, found: String, marker: String)
    /// Run `runID` of `component` lost its proof of life (e.g. its process was stopped past its lease,
    /// or its lock file was removed) and another process took it over: the deliveries it had
    /// claimed are the taker's, and their handlers were not started here. Reported through
    /// `SignalCenter.Options.onProblem`; the center carries on as a new run (a new
    /// `SignalCenter.runID`), which takes over the runs of its component that are gone.
    case runTakenOver(component: String, runID: String)
    /// The signal center of `component` (run `runID`) is suspended (`SignalCenter.suspend`): it holds
    /// nothing of the store open and takes nothing behind the app's back, so the call did nothing.
    /// Call `SignalCenter.resume()` first.
    case suspended(component: String, runID: String)
    /// When a post of `signal` was to be delivered is no time a store can record: its `notBefore` is
    /// infinite or not a number, or its ``Debounce``'s window is not above zero or over a year, or its
    /// maximum delay is shorter than the window. `reason` says which, and what to give instead.
    /// Nothing was posted.
    case invalidDeliveryTime(signal: String, reason: String)
    /// A consumer id given to `register` is empty or too long, or a consumer with that id exists
    /// that is not the one asked for (another signal, component, lifetime, delivery mode or handler).
    /// Nothing was registered.
    case invalidConsumerID(String, reason: String)
    /// A key of a post of `signal` — its `"idempotency key"`, `"ordering key"` or `"debounce key"` (`kind`) — is
    /// empty or too long. Nothing was posted.
    case invalidPostKey(signal: String, kind: String, reason: String)

    public var description: String {
        switch self {
        case .storeUnavailable(let path, let reason):
            "signal store \(path) cannot be opened: \(reason)"
        case .invalidStoreSettings(let source, let setting, let reason):
            "invalid \(setting) in the signal store settings \(source): \(reason)"
        case .notASignalStore(let path, let found):
            "\(path) is not a signal store, so it was left unchanged: it is \(found); give the signal store a file (or schema) of its own"
        case .newerSchema(let path, let found, let supported):
            "signal store \(path) has schema version \(found), newer than this HandlerKitSignals reads (up to \(supported)); it was left unchanged"
        case .storeBusy(let path, let operation, let waited):
            "signal store \(path) stayed locked by other processes for \(waited) s during \(operation); nothing was written, try again"
        case .storeReadOnly(let path, let operation):
            "signal store \(path) is read-only (\(operation) needs to write it)"
        case .storeFull(let path, let operation):
            "signal store \(path) is full (disk or size limit) during \(operation); nothing was written"
        case .storeCorrupt(let path, let operation, let detail):
            "signal store \(path) is damaged or not a signal store (during \(operation)): \(detail)"
        case .database(let path, let operation, let detail):
            "signal store \(path) failed during \(operation): \(detail)"
        case .runLock(let path, let reason):
            "run lock file \(path): \(reason)"
        case .malformedRecord(let table, let key, let column, let reason):
            "malformed record in table '\(table)', key '\(key)', column '\(column)': \(reason)"
        case .handlerNotRegistered(let handler, let delivery):
            "delivery '\(delivery)': its handler '\(handler)' is not registered in this process; the delivery is intact: requeue it from a process that registers the handler"
        case .invalidSignalID(let id, let reason):
            "invalid signal id '\(id.prefix(80))': \(reason)"
        case .invalidPayload(let signal, let argument, let reason):
            "payload of signal '\(signal)', value '\(argument)': \(reason)"
        case .payloadTooDeep(let signal, let path, let limit):
            "payload of signal '\(signal)': the value at '\(path)' nests deeper than a delivery reads: a consumer's "
                + "handler receives it inside its document's object and `bound` object, and a document may nest "
                + "\(limit) levels (DecodingLimits.maximumDepth); nothing was posted. Post a flatter value, or keep "
                + "deep structures elsewhere and post a reference to them"
        case .payloadTooLarge(let signal, let size, let limit, let largestValue):
            "payload of signal '\(signal)' is \(size) bytes of JSON, over the limit of \(limit) bytes a delivery "
                + "reads (DecodingLimits.maximumDocumentSize); its largest value is '\(largestValue)'; nothing was "
                + "posted. Data is stored as base64, which makes it a third larger (at most about "
                + "\(limit / 4 * 3 / 1024) KiB of Data fit); keep large content elsewhere (a file, a database) and "
                + "post a reference to it"
        case .invalidHandler(let handler, let reason):
            "handler '\(handler)' cannot be registered as a signal consumer: \(reason)"
        case .centerStopped(let component, let runID):
            "the signal center of component '\(component)' (run \(runID)) has been stopped"
        case .invalidComponent(let name, let reason):
            "invalid component name '\(name.prefix(80))': \(reason)"
        case .storeLost(let path, let found, let marker):
            "signal store \(path) is \(found), but \(marker) shows that a store with data was made there: its data is gone (the file was truncated, replaced or deleted), so no empty store was created over it; restore the store's files from a backup, or delete \(marker) to start a new, empty store"
        case .runTakenOver(let component, let runID):
            "run \(runID) of component '\(component)' was taken over by another process (it lost its proof of life); the deliveries it had claimed are the taker's, and none of their handlers was started here"
        case .suspended(let component, let runID):
            "the signal center of component '\(component)' (run \(runID)) is suspended and holds nothing of the store open, so nothing was done; call resume() first"
        case .invalidDeliveryTime(let signal, let reason):
            "post of signal '\(signal)': \(reason); nothing was posted"
        case .invalidConsumerID(let id, let reason):
            "consumer id '\(id.prefix(80))': \(reason); nothing was registered"
        case .invalidPostKey(let signal, let kind, let reason):
            "post of signal '\(signal)': its \(kind) \(reason); nothing was posted. Give a key of 1 to \(SignalCenter.maximumKeyLength) bytes"
        }
    }
}
