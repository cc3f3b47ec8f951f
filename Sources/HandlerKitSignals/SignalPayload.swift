import HandlerKit

/// The named values posted with a signal. Each is encoded at once, as a bound value of a handler
/// would be, and stored; the consumer's handler receives them as call-time arguments (a parameter
/// takes the value of its own name; values no parameter takes are ignored). A `nil` value is absent.
///
/// ```swift
/// try await center.post(signal, payload: ["success": true, "path": "/Photos/1.jpg"])
/// ```
public struct SignalPayload: Sendable, ExpressibleByDictionaryLiteral {
    /// The names HandlerKitSignals passes to handlers itself: not allowed in a payload.
    public static let reservedNames: Set<String> = ["deliveryKey", "signalID", "signalRevision"]

    private(set) var values: [String: HandlerValue] = [:]
    private var failures: [(name: String, reason: String)] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, (any Encodable)?)...) {
        for (name, value) in elements {
            if let value { set(name, value) }
        }
    }

    /// Sets the value of `name`; `nil` removes it.
    public mutating func set(_ name: String, _ value: (any Encodable)?) {
        guard let value else {
            values[name] = nil
            return
        }
        do {
            values[name] = try HandlerValue(encoding: value)
        } catch {
            failures.append((name, "cannot be encoded: \(error)"))
        }
    }

    /// The names that have a value.
    public var names: [String] { values.keys.sorted() }

    /// The stored form: one JSON object.
    func encoded(for signal: String) throws(SignalError) -> [UInt8] {
        if let failure = failures.first {
            throw .invalidPayload(signal: signal, argument: failure.name, reason: failure.reason)
        }
        if let reserved = values.keys.sorted().first(where: Self.reservedNames.contains) {
            throw .invalidPayload(
                signal: signal, argument: reserved,
                reason: "this name is reserved: handlers receive it from HandlerKitSignals itself")
        }
        return [UInt8](HandlerValue.object(values).jsonData())
    }
}
