/// Values passed to a handler when it is called or invalidated. They can be any `Sendable`
/// value, are never persisted, and override bound values of the same name.
///
/// A `nil` value means "absent": it does not override a bound value (as in Monal).
///
/// ```swift
/// try await handler.call(["account": account, "success": true, "errorReason": nil])
/// ```
public struct CallArguments: Sendable, ExpressibleByDictionaryLiteral {
    /// The names and values in the order given (`values[i]` belongs to `names[i]`); a later value
    /// of the same name wins; `nil` is absent.
    @usableFromInline private(set) var names: [String]
    @usableFromInline private(set) var values: [(any Sendable)?]

    public init(dictionaryLiteral elements: (String, (any Sendable)?)...) {
        names = []
        values = []
        guard !elements.isEmpty else { return }
        names.reserveCapacity(elements.count)
        values.reserveCapacity(elements.count)
        for (name, value) in elements {
            names.append(name)
            values.append(value)
        }
    }

    /// Call-time values from a dictionary.
    public init(_ dictionary: [String: any Sendable]) {
        names = dictionary.keys.sorted()
        values = names.map { dictionary[$0] }
    }

    /// Sets (or, with `nil`, leaves absent) the value of `name`.
    public mutating func set(_ name: String, _ value: (any Sendable)?) {
        names.append(name)
        values.append(value)
    }

    /// The names that have a non-nil value, without repetitions, in the order given.
    public var presentNames: [String] {
        var seen: Set<String> = []
        return names.filter { contains($0) && seen.insert($0).inserted }
    }

    /// Whether no values were given.
    @inlinable
    var isEmpty: Bool { names.isEmpty }

    /// The last value given for `name`. It may still be a boxed `Optional.none` (from a doubly
    /// optional value); `HandlerArguments` treats that as absent.
    @inlinable
    func value(named name: String) -> (any Sendable)? {
        guard !names.isEmpty, let position = names.lastIndex(of: name) else { return nil }
        return values[position] ?? earlierValue(named: name, before: position)
    }

    /// A `nil` later value means "absent", so an earlier non-nil value of the same name applies.
    @usableFromInline
    func earlierValue(named name: String, before end: Int) -> (any Sendable)? {
        for position in stride(from: end - 1, through: 0, by: -1) where names[position] == name {
            if let value = values[position] { return value }
        }
        return nil
    }

    func contains(_ name: String) -> Bool {
        guard let value = value(named: name) else { return false }
        return !isAbsent(value)
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
