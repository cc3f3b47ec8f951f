/// Values to bind to a handler when creating it or with `Handler.bind`. They must be `Encodable`
/// (`Codable` to be called later): they are encoded at once, into the form stored in the handler's
/// JSON, so they need not be `Sendable`. A `nil` value is not bound.
///
/// ```swift
/// let handler = try Handler(id: "Carbons.enabled", bound: ["rid": deviceID, "limit": 3])
/// ```
public struct HandlerBindings: Sendable, ExpressibleByDictionaryLiteral {
    enum Entry: Sendable {
        case value(HandlerValue)
        case encodingFailed(reason: String)
        case notBindable(typeName: String)
        /// Over a limit of the handler's document: `HandlerError.valueTooDeep`, its handler not yet known.
        case overLimit(HandlerError)
    }

    private(set) var entries: [(name: String, entry: Entry)] = []

    /// No values, to add to with `bind(_:_:)`.
    public init() {}

    /// The values given as a dictionary literal, by parameter name.
    public init(dictionaryLiteral elements: (String, (any Encodable)?)...) {
        for (name, value) in elements {
            if let value { entries.append((name, Self.encode(value, named: name))) }
        }
    }

    /// Binds `value` to `name`; `nil` leaves it unbound.
    public mutating func bind<T: Encodable>(_ name: String, _ value: T?) {
        if let value { entries.append((name, Self.encode(value, named: name))) }
    }

    /// A value whose type is not `Encodable` cannot be bound: creating the handler with it throws
    /// `HandlerError.notBindable`.
    public mutating func bind<T>(_ name: String, _ value: T?) {
        if value != nil { entries.append((name, .notBindable(typeName: String(describing: T.self)))) }
    }

    /// The names that have a value.
    public var names: [String] { entries.map(\.name) }

    /// `value` encoded where it is stored: as the member `name` of the handler document's `bound`.
    private static func encode(_ value: any Encodable, named name: String) -> Entry {
        do {
            return .value(try HandlerValueEncoder.encode(value, at: .bound(name)))
        } catch let error as HandlerError {
            return .overLimit(error)
        } catch {
            return .encodingFailed(reason: "\(error)")
        }
    }
}
