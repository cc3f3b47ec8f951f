/// A handler's bound values, kept as small parallel arrays: handlers bind a handful of values, and
/// a linear scan over short names is faster than hashing them on every call. Numbers are parsed
/// once, when the values are bound or decoded, not on every call.
@usableFromInline
struct BoundValues: Sendable {
    /// Unique names, in no particular order; `values[i]` belongs to `names[i]`.
    @usableFromInline private(set) var names: [String]
    @usableFromInline private(set) var values: [BoundValue]

    init(_ dictionary: [String: HandlerValue]) {
        names = []
        values = []
        names.reserveCapacity(dictionary.count)
        values.reserveCapacity(dictionary.count)
        for (name, value) in dictionary {
            names.append(name)
            values.append(BoundValue(value))
        }
    }

    /// The value bound to `name`, if any (possibly `.null`).
    @inlinable
    func value(named name: String) -> BoundValue? {
        names.withUnsafeBufferPointer { buffer in
            for position in buffer.indices where buffer[position] == name { return values[position] }
            return nil
        }
    }

    var dictionary: [String: HandlerValue] {
        Dictionary(uniqueKeysWithValues: zip(names, values.map(\.value)))
    }

    /// Adds `values`, replacing values of the same names.
    mutating func merge(_ newValues: [String: HandlerValue]) {
        for (name, value) in newValues {
            if let position = names.firstIndex(of: name) {
                values[position] = BoundValue(value)
            } else {
                names.append(name)
                values.append(BoundValue(value))
            }
        }
    }
}

/// A bound value with its number already parsed as `Int` and `Double` where it is one.
@usableFromInline
struct BoundValue: Sendable {
    @usableFromInline let value: HandlerValue
    @usableFromInline let integer: Int?
    @usableFromInline let double: Double?

    init(_ value: HandlerValue) {
        self.value = value
        if case .number(let text) = value {
            integer = Int(text)
            double = Double(text)
        } else {
            integer = nil
            double = nil
        }
    }

    /// The value as `String`, `Int`, `Bool` or `Double` without a dynamic cast once specialized;
    /// `nil` for other types and for mismatches (which the full decoder then reports).
    @inlinable
    func fastScalar<T>() -> T? {
        if T.self == Int.self, let integer { return integer as? T }
        if T.self == Double.self, let double { return double as? T }
        switch value {
        case .string(let text) where T.self == String.self: return text as? T
        case .bool(let flag) where T.self == Bool.self: return flag as? T
        default: return nil
        }
    }
}
