import Foundation

/// The id of a signal: any non-empty string of at most 512 bytes that neither begins nor ends with
/// white space (an id read from a file with its newline would otherwise post to no one), typically a
/// UUID made when an action starts (`SignalID()`), which the action's result is later posted under.
public struct SignalID: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The id as stored.
    public let rawValue: String

    /// The longest id accepted, in UTF-8 bytes.
    public static let maximumLength = 512

    /// A fresh, unique id.
    public init() {
        rawValue = UUID().uuidString
    }

    /// An id from a string; checked when it is used (`SignalError.invalidSignalID`).
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        rawValue = value
    }

    public var description: String { rawValue }

    func validated() throws(SignalError) -> String {
        if rawValue.isEmpty { throw .invalidSignalID(rawValue, reason: "it is empty") }
        if let first = rawValue.unicodeScalars.first, let last = rawValue.unicodeScalars.last,
            first.properties.isWhitespace || last.properties.isWhitespace
        {
            throw .invalidSignalID(
                rawValue, reason: "it begins or ends with white space (trim an id read from a file or a line of input)")
        }
        if rawValue.utf8.count > Self.maximumLength {
            throw .invalidSignalID(
                rawValue, reason: "it is \(rawValue.utf8.count) bytes long; the limit is \(Self.maximumLength)")
        }
        return rawValue
    }
}

/// The id of a registered consumer (a UUID string).
public struct ConsumerID: Hashable, Sendable, CustomStringConvertible {
    /// The id as stored.
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}

/// The id of one delivery: one consumer and one revision of its signal, `<consumer>/<revision>`.
/// The consumer's handler receives it as the call-time argument `deliveryKey` (a `String`), to
/// recognise a delivery it already began before a crash.
public struct DeliveryKey: Hashable, Sendable, CustomStringConvertible {
    /// The key as stored and passed to handlers.
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// What separates the consumer from the revision in a key.
    private static let separator = "/"

    /// The key of `consumer`'s delivery of `revision`.
    package init(consumer: String, revision: Int) {
        rawValue = "\(consumer)\(Self.separator)\(revision)"
    }

    /// The same key built in SQL, for a statement that learns the revision only as it runs: the
    /// expression of the key of the delivery of `revision` (an SQL expression of an integer) to
    /// `consumer` (one of text). The PostgreSQL store's statements use it; the SQLite store makes its
    /// keys in Swift.
    package static func sql(consumer: String, revision: String) -> String {
        "\(consumer) || '\(separator)' || \(revision)"
    }

    public var description: String { rawValue }
}
