import Foundation

/// A result that another process (or this one) delivers later: created pending and persisted in the
/// signal store, settled once from any process, awaited from any process of its component, and
/// re-attached from its id alone after a relaunch (see <doc:DurablePromises>).
///
/// A promise is `Codable` as its id, so it can be bound to a `@handler` as an argument or sent to
/// another process, which settles it:
///
/// ```swift
/// let upload = try await center.makePromise(of: AvatarURL.self, fallback: savedAvatarHandler)
/// // … the extension, in another process:
/// try await extensionCenter.fulfil(upload, with: url, settlementKey: stanzaID)
/// // … the app, awaiting:
/// let url = try await center.value(of: upload)
/// ```
public struct DurablePromise<Value: Codable & Sendable>: Sendable, Hashable, Codable {
    /// The promise's id, unique in its store.
    public let id: String

    /// The promise with this id (to re-attach to one made earlier, e.g. after a relaunch). Nothing
    /// is checked here: awaiting or settling it checks that it exists and holds a `Value`.
    public init(id: String) {
        self.id = id
    }

    public init(from decoder: any Decoder) throws {
        id = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(id)
    }

    /// The name a promise of `Value` stores its value type under.
    static var valueTypeName: String { String(reflecting: Value.self) }

    /// The names a promise holding `Value`s may be stored under: ``valueTypeName`` and its
    /// ``RenamedPromiseValue/formerTypeNames``.
    static var valueTypeNames: [String] {
        [valueTypeName] + ((Value.self as? any RenamedPromiseValue.Type)?.formerTypeNames ?? [])
    }

    /// Whether a promise stored with value type `stored` holds `Value`s: one of ``valueTypeNames``.
    static func holds(_ stored: String) -> Bool {
        valueTypeNames.contains(stored)
    }
}

/// A promise value type that was renamed (or moved to another module): promises made while it had
/// another name are awaited and settled as this type. Name each former name as `String(reflecting:)`
/// gave it (`"MyApp.UploadSlot"`), like a handler's `formerly:`.
public protocol RenamedPromiseValue {
    /// The type's former fully qualified names.
    static var formerTypeNames: [String] { get }
}

/// Why a promise was rejected: a code, a message, and details, all `Codable`, so any process can
/// reject a promise and any other can read why.
public struct PromiseRejection: Error, Codable, Sendable, Hashable, CustomStringConvertible {
    /// A short machine-readable code (e.g. `"item-not-found"`).
    public var code: String
    /// What happened, for people.
    public var message: String
    /// Anything else the awaiting side may need.
    public var details: [String: String]

    public init(code: String, message: String, details: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.details = details
    }

    public var description: String {
        "rejected (\(code)): \(message)"
            + (details.isEmpty
                ? "" : " " + details.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: ", "))
    }
}

/// How a promise was settled.
public enum PromiseOutcome: String, Sendable, Hashable, Codable {
    /// With a value.
    case fulfilled
    /// With a ``PromiseRejection``.
    case rejected
    /// By its deadline, unsettled until then.
    case timedOut
    /// By ``SignalCenter/cancel(_:settlementKey:)``.
    case cancelled
}
