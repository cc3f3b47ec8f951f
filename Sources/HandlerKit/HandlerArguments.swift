/// The arguments of one invocation, as a generated shim sees them: call-time values first, then
/// bound values. The result type is inferred from the parameter it is passed to:
///
/// ```swift
/// try Carbons.enabled(account: arguments.required("account"), note: arguments.optional("note"))
/// ```
///
/// The accessors are `@inlinable` so that they are specialized for each parameter type in the
/// module that calls them: reading an `Int`, `String`, `Bool` or `Double` costs no dynamic cast.
@_spi(HandlerKitGenerated)
public struct HandlerArguments: Sendable {
    /// The id of the handler being invoked (for error messages).
    public let handlerID: String
    @usableFromInline let bound: BoundValues
    @usableFromInline let callTime: CallArguments

    init(handlerID: String, bound: BoundValues, callTime: consuming CallArguments) {
        self.handlerID = handlerID
        self.bound = bound
        self.callTime = callTime
    }

    // MARK: Types that are not Decodable: call-time values only

    /// The value of a mandatory parameter whose type is not `Decodable`.
    @inlinable
    public func required<T>(_ name: String) throws -> T {
        guard let value: T = try lookUp(name) else { throw missingArgument(name, T.self) }
        return value
    }

    /// The value of a `T?` parameter whose type is not `Decodable`; `nil` when absent.
    @inlinable
    public func optional<T>(_ name: String) throws -> T? {
        try lookUp(name)
    }

    /// The value of a defaulted parameter whose type is not `Decodable`, or the default when absent.
    @inlinable
    public func value<T>(_ name: String, default defaultValue: @autoclosure () -> T) throws -> T {
        try valueOrDefault(lookUp(name), defaultValue)
    }

    // MARK: Decodable types: call-time values, then bound values

    /// The value of a mandatory parameter.
    @inlinable
    public func required<T: Decodable>(_ name: String) throws -> T {
        guard let value: T = try lookUp(name) else { throw missingArgument(name, T.self) }
        return value
    }

    /// The value of a `T?` parameter; `nil` when absent.
    @inlinable
    public func optional<T: Decodable>(_ name: String) throws -> T? {
        try lookUp(name)
    }

    /// The value of a defaulted parameter, or the default when absent.
    @inlinable
    public func value<T: Decodable>(_ name: String, default defaultValue: @autoclosure () -> T) throws -> T {
        try valueOrDefault(lookUp(name), defaultValue)
    }

    // MARK: Lookup

    @inlinable
    func lookUp<T>(_ name: String) throws -> T? {
        if !callTime.isEmpty, let position = callTime.position(of: name) {
            return try callTimeValue(callTime.entries[position].value, name)
        }
        if let bound = bound.value(named: name), bound.value != .null {
            throw HandlerError.notBindable(handler: handlerID, argument: name, type: "\(T.self)")
        }
        return nil
    }

    @inlinable
    func lookUp<T: Decodable>(_ name: String) throws -> T? {
        if !callTime.isEmpty, let position = callTime.position(of: name) {
            return try callTimeValue(callTime.entries[position].value, name)
        }
        guard let position = bound.position(of: name) else { return nil }
        if let scalar: T = bound.entries[position].value.fastScalar() { return scalar }
        return try decodeBound(bound.entries[position].value.value, name, as: T.self)
    }

    /// The value found, or the default when it is absent. For an optional `T` a found value can be
    /// a `nil` that came from a doubly optional call-time value: that is absent too.
    @inlinable
    func valueOrDefault<T>(_ found: T?, _ defaultValue: () -> T) -> T {
        guard let found else { return defaultValue() }
        if T.self is any OptionalValue.Type, isAbsent(found) { return defaultValue() }
        return found
    }

    /// A call-time value as `T`; `nil` when it is a boxed `Optional.none`.
    @inlinable
    func callTimeValue<T>(_ value: any Sendable, _ name: String) throws -> T? {
        if let typed = exactly(value, as: T.self) ?? (value as? T) { return typed }
        if isAbsent(value) { return nil }
        throw HandlerError.typeMismatch(
            handler: handlerID, argument: name, expectedType: "\(T.self)",
            found: "a call-time value of type \(type(of: value))", detail: nil)
    }

    /// A bound value as `T` through the full decoder; `nil` for `null`.
    @usableFromInline
    func decodeBound<T: Decodable>(_ value: HandlerValue, _ name: String, as type: T.Type) throws(HandlerError) -> T? {
        guard value != .null else { return nil }
        do {
            return try HandlerValueDecoder.decode(type, from: value, context: bound.context)
        } catch let error as DecodingError {
            throw .typeMismatch(
                handler: handlerID, argument: name, expectedType: "\(T.self)",
                found: value.kindDescription, detail: error.handlerKitDetail)
        } catch {
            throw .typeMismatch(
                handler: handlerID, argument: name, expectedType: "\(T.self)",
                found: value.kindDescription, detail: "\(error)")
        }
    }

    @usableFromInline
    func missingArgument<T>(_ name: String, _ type: T.Type) -> HandlerError {
        .missingArgument(handler: handlerID, argument: name, expectedType: "\(T.self)")
    }
}
