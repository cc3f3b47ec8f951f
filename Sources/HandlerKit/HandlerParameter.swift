/// One parameter of a registered handler: its name (the Swift parameter's internal name), its type
/// and whether it is mandatory. Generated code creates these; they let the runtime check bound
/// values against the parameter's type when a handler is created or decoded.
///
/// A final class rather than a struct so that looking parameters up while decoding costs a retain,
/// not a copy of its strings.
public final class HandlerParameter: Sendable {
    /// The parameter's internal name: the key of its value.
    public let name: String
    /// The parameter's type, for messages (e.g. `Int`, `Account`).
    public let typeName: String
    /// `false` for `T?` parameters and parameters with a default value.
    public let isMandatory: Bool
    /// The names the parameter had before (`@handler(renamed:)`): a value stored under one binds to it.
    public let formerNames: [String]
    private let check: (any BoundValueCheck)?
    private let takes: @Sendable (Any.Type) -> Bool?

    /// A mandatory parameter whose type is not `Decodable`: it can only be passed at call time.
    @_spi(HandlerKitGenerated)
    public static func required<T>(
        _ name: String, _ type: T.Type, formerly formerNames: [String] = []
    ) -> HandlerParameter {
        unbindable(name, type, isMandatory: true, formerNames: formerNames)
    }

    /// A mandatory parameter of a `Decodable` type.
    @_spi(HandlerKitGenerated)
    public static func required<T: Decodable>(
        _ name: String, _ type: T.Type, formerly formerNames: [String] = []
    ) -> HandlerParameter {
        bindable(name, type, isMandatory: true, formerNames: formerNames)
    }

    /// An optional parameter (`T?`, given as `T.self`, or one with a default value) whose type is
    /// not `Decodable`.
    @_spi(HandlerKitGenerated)
    public static func optional<T>(
        _ name: String, _ type: T.Type, formerly formerNames: [String] = []
    ) -> HandlerParameter {
        unbindable(name, type, isMandatory: false, formerNames: formerNames)
    }

    /// An optional parameter (`T?`, given as `T.self`, or one with a default value) of a `Decodable` type.
    @_spi(HandlerKitGenerated)
    public static func optional<T: Decodable>(
        _ name: String, _ type: T.Type, formerly formerNames: [String] = []
    ) -> HandlerParameter {
        bindable(name, type, isMandatory: false, formerNames: formerNames)
    }

    private static func bindable<T: Decodable>(
        _ name: String, _ type: T.Type, isMandatory: Bool, formerNames: [String]
    ) -> HandlerParameter {
        HandlerParameter(
            name: name, typeName: String(describing: type), isMandatory: isMandatory, formerNames: formerNames,
            check: DecodableCheck<T>(), takes: takesValues(of: T.self))
    }

    private static func unbindable<T>(
        _ name: String, _ type: T.Type, isMandatory: Bool, formerNames: [String]
    ) -> HandlerParameter {
        HandlerParameter(
            name: name, typeName: String(describing: type), isMandatory: isMandatory, formerNames: formerNames,
            check: nil, takes: takesValues(of: T.self))
    }

    private init(
        name: String, typeName: String, isMandatory: Bool, formerNames: [String], check: (any BoundValueCheck)?,
        takes: @escaping @Sendable (Any.Type) -> Bool?
    ) {
        self.name = name
        self.typeName = typeName
        self.isMandatory = isMandatory
        self.formerNames = formerNames
        self.check = check
        self.takes = takes
    }

    /// Whether every call-time value of static type `type` can be passed to this parameter, decided
    /// from the types alone (e.g. before any value exists, when subscribing a handler to an event).
    ///
    /// `true` when `type` is the parameter's type or a subclass of it, or the parameter's type is
    /// `Any`, `any Sendable` (or `AnyObject` and `type` is a class); for an `Optional` `type`, when the
    /// parameter is optional (a `nil` is absent) and takes the wrapped type. `nil` when the parameter's
    /// type is another protocol: whether a value conforms is only known from the value. Else `false`.
    package func accepts(_ type: Any.Type) -> Bool? {
        if let optional = type as? any OptionalType.Type {
            guard !isMandatory else { return false }
            return takes(optional.wrappedType)
        }
        return takes(type)
    }

    /// Whether a value of this parameter can be bound (its type is `Decodable`).
    public var isBindable: Bool { check != nil }

    /// Checks that `value` can be bound to this parameter of `handler`.
    func validate(_ bound: BoundValue, handler: String, context: DecodingContext) throws(HandlerError) {
        let value = bound.value
        guard value != .null else { return }
        guard let check else { throw .notBindable(handler: handler, argument: name, type: typeName) }
        do {
            try check.check(bound, context: context)
        } catch let error as DecodingError {
            throw .typeMismatch(
                handler: handler, argument: name, expectedType: typeName,
                found: value.kindDescription, detail: error.handlerKitDetail)
        } catch {
            throw .typeMismatch(
                handler: handler, argument: name, expectedType: typeName,
                found: value.kindDescription, detail: "\(error)")
        }
    }
}

/// Whether values of a type can be passed as a `T`, from the types alone (see `HandlerParameter.accepts`).
private func takesValues<T>(of _: T.Type) -> @Sendable (Any.Type) -> Bool? {
    { type in
        if type is T.Type || T.self == Any.self { return true }
        if T.self == AnyObject.self { return type is AnyClass }
        // A protocol type's metatype is `P.Protocol`: conformance can only be checked on a value.
        if String(describing: Swift.type(of: T.self)).hasSuffix(".Protocol") { return nil }
        return false
    }
}

/// An `Optional` type, for reading its wrapped type.
private protocol OptionalType {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalType {
    static var wrappedType: Any.Type { Wrapped.self }
}

/// Checks that a bound value decodes as a parameter's type.
private protocol BoundValueCheck: Sendable {
    func check(_ value: BoundValue, context: DecodingContext) throws
}

private struct DecodableCheck<T: Decodable>: BoundValueCheck {
    func check(_ value: BoundValue, context: DecodingContext) throws {
        if value.hasFastScalar(of: T.self) { return }
        _ = try HandlerValueDecoder.decode(T.self, from: value.value, context: context)
    }
}
