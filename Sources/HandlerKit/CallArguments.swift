/// Values passed to a handler when it is called or invalidated. They can be any `Sendable`
/// value, are never persisted, and override bound values of the same name.
///
/// A `nil` value means "absent": it does not override a bound value (as in Monal).
///
/// ```swift
/// try await handler.call(["account": account, "success": true, "errorReason": nil])
/// ```
public struct CallArguments: Sendable, ExpressibleByDictionaryLiteral {
    /// One name and its value.
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline let name: String
        @usableFromInline let value: any Sendable

        @inlinable
        init(_ name: String, _ value: any Sendable) {
            self.name = name
            self.value = value
        }
    }

    /// The non-nil values in the order given; a later value of the same name wins. A `nil` never
    /// overrides anything, so it is not kept.
    @usableFromInline private(set) var entries: [Entry]

    @inlinable
    public init(dictionaryLiteral elements: (String, (any Sendable)?)...) {
        entries = []
        guard !elements.isEmpty else { return }
        entries.reserveCapacity(elements.count)
        for (name, value) in elements {
            if let value { entries.append(Entry(name, value)) }
        }
    }

    /// Call-time values from a dictionary.
    public init(_ dictionary: [String: any Sendable]) {
        entries = dictionary.keys.sorted().compactMap { name in dictionary[name].map { Entry(name, $0) } }
    }

    /// Sets (or, with `nil`, leaves absent) the value of `name`.
    public mutating func set(_ name: String, _ value: (any Sendable)?) {
        guard let value else { return }
        entries.append(Entry(name, value))
    }

    /// The names that have a non-nil value, without repetitions, in the order given.
    public var presentNames: [String] {
        var seen: Set<String> = []
        return entries.map(\.name).filter { contains($0) && seen.insert($0).inserted }
    }

    /// Whether no values were given.
    @inlinable
    var isEmpty: Bool { entries.isEmpty }

    /// The position of the value that applies to `name`: the last one given. It may still be a
    /// boxed `Optional.none` (from a doubly optional value); `HandlerArguments` treats that as absent.
    @inlinable
    func position(of name: String) -> Int? {
        var position = entries.count
        while position > 0 {
            position -= 1
            if entries[position].name == name { return position }
        }
        return nil
    }

    func contains(_ name: String) -> Bool {
        guard let position = position(of: name) else { return false }
        return !isAbsent(entries[position].value)
    }
}

/// `value` as `T` when `T` is exactly its dynamic type, else `nil`: the common case of a call-time
/// value passed as the parameter's own type, without the runtime's general cast (which also handles
/// subclasses, optionals, existentials and bridging, and costs several times as much). Callers fall
/// back to `as?` when this returns `nil`.
@inlinable
func exactly<T>(_ value: any Sendable, as type: T.Type) -> T? {
    func open<Value>(_ value: Value) -> T? {
        guard Value.self == T.self else { return nil }
        // Same type, so the bytes of `value` are a `T`; `load` copies it (retaining as needed).
        return withUnsafePointer(to: value) { UnsafeRawPointer($0).load(as: T.self) }
    }
    return _openExistential(value, do: open)
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
