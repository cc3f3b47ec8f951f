/// A registered handler: its id, its parameters and the shim that extracts its arguments and
/// invokes the function. Generated code creates one per `@handler` function (its initializers are
/// `@_spi(HandlerKitGenerated)`); you read them from a ``Handler/descriptor`` or
/// ``HandlerRegistry/descriptor(for:)``.
///
/// A final class rather than a struct: the registry, handlers and decoding pass it around, and a
/// reference costs one retain where a copy of its id, parameters and shim cost three.
public final class HandlerDescriptor: Sendable {
    enum Invocation: Sendable {
        case sync(@Sendable (HandlerArguments) throws -> Void)
        case async(@Sendable (HandlerArguments) async throws -> Void)
    }

    /// The handler's id, e.g. `Carbons.enabled` or an explicit `@handler(id:)`.
    public let id: String
    /// The ids the handler had before (`@handler(formerly:)`): documents naming one rebuild to this handler.
    public let formerIDs: [String]
    /// The function's parameters, in declaration order.
    public let parameters: [HandlerParameter]
    let invocation: Invocation
    /// Whether a parameter has former names (so decoding renames values bound under them).
    let hasFormerParameterNames: Bool

    /// A handler whose function is synchronous.
    @_spi(HandlerKitGenerated)
    public convenience init(
        id: String, formerIDs: [String] = [], parameters: [HandlerParameter],
        invoke: @escaping @Sendable (HandlerArguments) throws -> Void
    ) {
        self.init(id: id, formerIDs: formerIDs, parameters: parameters, invocation: .sync(invoke))
    }

    /// A handler whose function is `async`.
    @_spi(HandlerKitGenerated)
    public convenience init(
        id: String, formerIDs: [String] = [], parameters: [HandlerParameter],
        invokeAsync: @escaping @Sendable (HandlerArguments) async throws -> Void
    ) {
        self.init(id: id, formerIDs: formerIDs, parameters: parameters, invocation: .async(invokeAsync))
    }

    private init(id: String, formerIDs: [String], parameters: [HandlerParameter], invocation: Invocation) {
        self.id = id
        self.formerIDs = formerIDs
        self.parameters = parameters
        self.invocation = invocation
        hasFormerParameterNames = parameters.contains { !$0.formerNames.isEmpty }
    }

    /// Whether the function is `async` (then it can only be called with `await`).
    public var isAsync: Bool {
        if case .async = invocation { return true }
        return false
    }

    /// The parameter named `name`, if any. (A linear search: functions have few parameters.)
    public func parameter(named name: String) -> HandlerParameter? {
        parameterIndex(named: name).map { parameters[$0] }
    }

    func parameterIndex(named name: String) -> Int? {
        parameters.firstIndex { $0.name == name }
    }
}

extension HandlerDescriptor {
    /// The current name of the parameter that `name` is a former name of, when `name` is no current
    /// parameter's name.
    func currentParameterName(forFormer name: String) -> String? {
        guard hasFormerParameterNames, parameterIndex(named: name) == nil else { return nil }
        return parameters.first { $0.formerNames.contains(name) }?.name
    }
}
