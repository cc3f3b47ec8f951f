/// Values passed to a handler when it is called or invalidated. They can be any `Sendable`
/// value, are never persisted, and override bound values of the same name.
///
/// A `nil` value means "absent": it does not override a bound value (as in Monal).
///
/// ```swift
/// try await handler.call(["account": account, "success": true, "errorReason": nil])
/// ```
public struct CallArguments: Sendable, ExpressibleByDictionaryLiteral {
    /// The values in the order given; a later value of the same name wins; `nil` is absent.
    @usableFromInline
    private(set) var entries: [(String, (any Sendable)?)]

    public init(dictionaryLiteral elements: (String, (any Sendable)?)...) {
        entries = elements
    }

    /// Call-time values from a dictionary.
    public init(_ values: [String: any Sendable]) {
        entries = values.keys.sorted().map { ($0, values[$0]) }
    }

    /// Sets (or, with `nil`, leaves absent) the value of `name`.
    public mutating func set(_ name: String, _ value: (any Sendable)?) {
        entries.append((name, value))
    }

    /// The names that have a non-nil value, in the order given.
    public var names: [String] {
        var seen: Set<String> = []
        return entries.compactMap { name, value in
            value.map { isAbsent($0) } == false && seen.insert(name).inserted ? name : nil
        }
    }

    /// The last value given for `name`. It may still be a boxed `Optional.none` (from a doubly
    /// optional value); `HandlerArguments` treats that as absent.
    @inlinable
    func value(named name: String) -> (any Sendable)? {
        entries.withUnsafeBufferPointer { buffer in
            var position = buffer.endIndex
            while position > buffer.startIndex {
                position -= 1
                if buffer[position].0 == name, let value = buffer[position].1 { return value }
            }
            return nil
        }
    }

    func contains(_ name: String) -> Bool {
        entries.contains { $0.0 == name && $0.1.map { !isAbsent($0) } == true }
    }
}

/// Whether `value` is a boxed `Optional.none` (of any depth).
@usableFromInline
func isAbsent(_ value: Any) -> Bool {
    (value as? any OptionalValue)?.isNone ?? false
}

/// Lets a boxed `Optional` (of any depth) tell whether it holds a value.
@usableFromInline
protocol OptionalValue {
    var isNone: Bool { get }
}

extension Optional: OptionalValue {
    @usableFromInline
    var isNone: Bool {
        switch self {
        case .none: true
        case .some(let wrapped): (wrapped as? any OptionalValue)?.isNone ?? false
        }
    }
}
