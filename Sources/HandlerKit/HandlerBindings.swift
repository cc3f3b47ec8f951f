/// Values to bind to a handler when creating it or with `Handler.bind`. They must be `Codable`:
/// they are stored in the handler's JSON. A `nil` value is not bound.
///
/// ```swift
/// let handler = try Handler(id: "Carbons.enabled", bound: ["rid": deviceID, "limit": 3])
/// ```
public struct HandlerBindings: Sendable, ExpressibleByDictionaryLiteral {
    enum Entry: Sendable {
        case value(any Encodable & Sendable)
        case notBindable(typeName: String)
    }

    private(set) var entries: [(name: String, entry: Entry)] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, (any Encodable & Sendable)?)...) {
        for (name, value) in elements {
            if let value { entries.append((name, .value(value))) }
        }
    }

    /// Binds `value` to `name`; `nil` leaves it unbound.
    public mutating func bind<T: Encodable & Sendable>(_ name: String, _ value: T?) {
        if let value { entries.append((name, .value(value))) }
    }

    /// A value whose type is not `Codable` and `Sendable` cannot be bound: creating the handler
    /// with it throws `HandlerError.notBindable`.
    public mutating func bind<T>(_ name: String, _ value: T?) {
        if value != nil { entries.append((name, .notBindable(typeName: String(describing: T.self)))) }
    }

    /// The names that have a value.
    public var names: [String] { entries.map(\.name) }
}
