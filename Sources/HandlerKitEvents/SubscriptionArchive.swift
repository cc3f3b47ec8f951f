import Foundation
import HandlerKit

/// Saves and restores the handler subscriptions of a set of events, as one JSON document that embeds
/// HandlerKit's handler documents. Closures are never saved.
///
/// ```swift
/// let archive = SubscriptionArchive(registry: .shared)
/// try archive.add(Player.started)
/// try archive.add(account.messageReceived)           // an instance event whose object has an eventIdentity
/// let report = try archive.restore(from: fileURL)    // at start-up: reports dormant subscriptions
/// …
/// try archive.save(to: fileURL)                      // whenever subscriptions change
/// ```
///
/// The document (members sorted, two-space indented, identical bytes for identical subscriptions):
///
/// ```json
/// {
///   "events" : {
///     "App.Player.started" : [
///       { "background" : false, "handler" : { "bound" : { "prefix" : "▶" }, "id" : "Player.log", "version" : 1 },
///         "locked" : false, "oneTime" : false }
///     ]
///   },
///   "format" : "HandlerKitEvents.subscriptions",
///   "version" : 1
/// }
/// ```
///
/// Restoring appends each event's saved subscriptions after its current subscribers, keeping their
/// order, one-time, background and lock state. Nothing saved is ever dropped: a subscription that
/// cannot be restored (its handler id is no longer registered, a bound value no longer fits, the
/// entry is damaged) stays in its event as a *dormant* subscription, is reported, and is written again
/// verbatim by the next save; the subscriptions of an event the archive does not know are kept in
/// the archive and written again too. A document that cannot be read as a whole (malformed,
/// truncated, another version) is an error and restores nothing.
public final class SubscriptionArchive: Sendable {
    /// The format version this library writes and reads.
    public static let version = 1
    /// The value of the document's `format` member.
    public static let format = "HandlerKitEvents.subscriptions"

    private let registry: HandlerRegistry
    private let limits: DecodingLimits
    private let state = Locked(State())

    private struct State {
        var events: [String: ArchivedEvent] = [:]
        /// Saved subscriptions of events this archive does not know, kept for the next save.
        var unknownEvents: [String: HandlerValue] = [:]
    }

    /// An event as the archive reaches it: weakly, so an instance event still dies with its object.
    private struct ArchivedEvent {
        let save: @Sendable () -> [HandlerValue]?
        let restore:
            @Sendable ([HandlerValue], String, HandlerRegistry, _ changing: Bool) -> (
                restored: Int, problems: [EventError]
            )?
    }

    /// How many levels the archive's own document adds above each handler document it embeds
    /// (the document, `events`, an event's list, a subscription).
    static let ownLevels = 4

    /// An archive whose handlers are rebuilt from `registry`; `limits` bound the size of a document
    /// it restores (default: 64 MiB) and the depth of each handler document in it (default: 64
    /// levels, as HandlerKit writes them; the archive's own four levels come on top).
    public init(
        registry: HandlerRegistry = .shared, limits: DecodingLimits = DecodingLimits(maximumDocumentSize: 64 << 20)
    ) {
        self.registry = registry
        self.limits = limits
    }

    /// Adds an event whose handler subscriptions this archive saves and restores.
    ///
    /// - Throws: `EventError.notPersistable` for an instance event whose object has no
    ///   `eventIdentity`; `.duplicateEvent` if an event with the same key was added before.
    public func add<Sender, Payload>(_ event: Event<Sender, Payload>) throws(EventError) {
        guard let key = event.persistenceKey else { throw .notPersistable(event: event.name) }
        let archived = ArchivedEvent(
            save: { [weak event] in event?.savedSubscriptions() },
            restore: { [weak event] saved, path, registry, changing in
                event?.restore(saved, path: path, registry: registry, changing: changing)
            }
        )
        try state.withLock { (state: inout State) throws(EventError) in
            guard state.events[key] == nil else { throw .duplicateEvent(key: key) }
            state.events[key] = archived
        }
    }

    // MARK: Saving

    /// The document: every added event's handler and dormant subscriptions, plus the kept
    /// subscriptions of unknown events. Events without any are left out.
    public func save() -> Data {
        let (events, unknown) = state.withLock { ($0.events, $0.unknownEvents) }
        var saved = unknown
        for (key, event) in events {
            if let subscriptions = event.save(), !subscriptions.isEmpty { saved[key] = .array(subscriptions) }
        }
        let document: HandlerValue = .object([
            "events": .object(saved),
            "format": .string(Self.format),
            "version": .number(String(Self.version)),
        ])
        return document.jsonData(prettyPrinted: true) + Data("\n".utf8)
    }

    /// Writes the document to `url` atomically (a reader sees the old or the new file, never half).
    public func save(to url: URL) throws(EventError) {
        do {
            try save().write(to: url, options: .atomic)
        } catch {
            throw .fileError(path: url.path(percentEncoded: false), reason: error.localizedDescription)
        }
    }

    // MARK: Restoring

    /// Restores the subscriptions saved in `json` into the added events.
    ///
    /// - Returns: how many were restored, and the problems that left subscriptions dormant or
    ///   unknown events kept aside (`EventError.dormantSubscription`, `.unknownEvent`).
    /// - Throws: `EventError.malformedDocument`, `.unsupportedVersion` or `.invalidDocument` when
    ///   the document cannot be read as a whole; then nothing is restored or changed.
    @discardableResult
    public func restore(from json: some Collection<UInt8>) throws(EventError) -> RestoreReport {
        try restore(from: json, changing: true)
    }

    /// What `restore(from:)` would report for `json`, changing nothing: no
    /// subscription is added to an event and no unknown event is kept. For an app's tests, on a
    /// snapshot of a document its users saved, with the archive's events added as the app adds
    /// them: every subscription a release would leave dormant is in ``RestoreReport/problems``, with
    /// the reason its users would get.
    ///
    /// ```swift
    /// let archive = SubscriptionArchive(registry: .shared)
    /// try archive.add(Player.started)
    /// let report = try archive.check(Data(contentsOf: snapshotURL))
    /// #expect(report.problems.isEmpty, "\(report)")
    /// ```
    ///
    /// - Throws: as `restore(from:)` does, when the document cannot be read as a whole.
    public func check(_ json: some Collection<UInt8>) throws(EventError) -> RestoreReport {
        try restore(from: json, changing: false)
    }

    private func restore(from json: some Collection<UInt8>, changing: Bool) throws(EventError) -> RestoreReport {
        let saved = try Self.savedEvents(json, limits: limits)
        let events = state.withLock { $0.events }
        var report = RestoreReport()
        var unknown: [String: HandlerValue] = [:]
        for key in saved.keys.sorted() {
            let path = "events.\(key)"
            guard case .array(let subscriptions)? = saved[key] else {
                // An event's entry that is not an array: kept as it is, like an unknown event's.
                unknown[key] = saved[key]
                report.problems.append(
                    .dormantSubscription(
                        path: path,
                        reason: "expected an array of subscriptions, found \(saved[key]?.kindDescription ?? "nothing")")
                )
                continue
            }
            guard let outcome = events[key]?.restore(subscriptions, path, registry, changing) else {
                unknown[key] = .array(subscriptions)
                report.problems.append(.unknownEvent(key: key, path: path))
                continue
            }
            report.restored += outcome.restored
            report.problems += outcome.problems
        }
        if changing { state.withLock { $0.unknownEvents.merge(unknown) { _, new in new } } }
        return report
    }

    /// Restores the subscriptions saved in the file at `url` (see `restore(from:)` for data). A
    /// missing file restores nothing. A file that cannot be read as a whole is left in place and
    /// copied to `<name>.unreadable` first, so a later `save(to:)` does not lose what it held.
    @discardableResult
    public func restore(from url: URL) throws(EventError) -> RestoreReport {
        let path = url.path(percentEncoded: false)
        guard FileManager.default.fileExists(atPath: path) else { return RestoreReport() }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .fileError(path: path, reason: error.localizedDescription)
        }
        do {
            return try restore(from: data)
        } catch {
            let copy = url.appendingPathExtension("unreadable")
            try? FileManager.default.removeItem(at: copy)
            try? FileManager.default.copyItem(at: url, to: copy)
            throw error
        }
    }

    /// The `events` member of a document, after checking its shape, format and version.
    private static func savedEvents(
        _ json: some Collection<UInt8>, limits: DecodingLimits
    ) throws(EventError) -> [String: HandlerValue] {
        let document: HandlerValue
        do {
            // Handler documents sit `ownLevels` down: they get their full depth below them.
            var documentLimits = limits
            documentLimits.maximumDepth = limits.maximumDepth + ownLevels
            document = try HandlerValue(json: json, limits: documentLimits)
        } catch {
            throw .malformedDocument(underlying: error)
        }
        guard case .object(let members) = document else {
            throw .invalidDocument(path: "$", reason: "expected an object, found \(document.kindDescription)")
        }
        if let unknown = members.keys.sorted().first(where: { !["events", "format", "version"].contains($0) }) {
            throw .invalidDocument(
                path: unknown, reason: "unknown member; a subscriptions document has events, format, version")
        }
        switch members["version"] {
        case .number(let text)? where text == String(version): break
        case .number(let text)?: throw .unsupportedVersion(found: text, supported: version)
        case nil: throw .invalidDocument(path: "version", reason: "missing")
        case let other?:
            throw .invalidDocument(path: "version", reason: "expected a number, found \(other.kindDescription)")
        }
        guard members["format"] == .string(format) else {
            throw .invalidDocument(
                path: "format",
                reason: "expected \"\(format)\", found \(members["format"]?.kindDescription ?? "nothing")")
        }
        switch members["events"] {
        case .object(let events)?: return events
        case nil: throw .invalidDocument(path: "events", reason: "missing")
        case let other?:
            throw .invalidDocument(path: "events", reason: "expected an object, found \(other.kindDescription)")
        }
    }
}

/// What `SubscriptionArchive.restore` did.
public struct RestoreReport: Sendable, CustomStringConvertible {
    /// How many subscriptions are active again.
    public var restored = 0
    /// Subscriptions kept dormant and events kept aside, each saying where and why.
    public var problems: [EventError] = []

    public var description: String {
        "restored \(restored) subscription(s)"
            + (problems.isEmpty
                ? "" : "; \(problems.count) kept aside: " + problems.map(\.description).joined(separator: "; "))
    }
}
