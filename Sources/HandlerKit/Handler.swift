/// A serializable callback: a reference to a registered `@handler` function plus bound values.
///
/// Create one from a generated reference or by id, pass it around or persist it as JSON, rebuild
/// it in this or another process, and `call` it. Call-time values override bound values of the
/// same name. `invalidate` runs the invalidation target (which shares the bound values) once and
/// ends the handler; afterwards `call`, `bind` and `invalidate` throw `HandlerError.invalidated`.
///
/// ```swift
/// let handler = try Uploads.finishedHandler(fileID: 7)
/// try await handler.call(["size": 1024])       // any handler, wherever you can `await`
/// try handler.callSynchronously()              // a synchronous handler, from synchronous code
/// ```
///
/// A handler is safe to use from many tasks at once: of concurrent invalidations exactly one wins.
public final class Handler: Sendable {
    /// The id of the function this handler calls.
    public let id: String
    /// The id of the function invalidation calls, if any.
    public let invalidationID: String?
    let target: HandlerDescriptor
    let invalidationTarget: HandlerDescriptor?
    let context: DecodingContext
    private let state: Locked<State>

    struct State {
        var bound: BoundValues
        var isInvalidated = false
    }

    /// Creates a handler for the function registered as `id`, with values bound at creation.
    ///
    /// - Throws: `HandlerError.unknownHandler` for an id that is not registered
    ///   (`.noHandlersRegistered` when no table is);
    ///   `.unknownArgument`, `.notBindable`, `.typeMismatch` or `.encodingFailed` for a bound value
    ///   that no parameter of the handler or its invalidation target can take.
    public convenience init(
        id: String, bound: HandlerBindings = [:], invalidation: String? = nil,
        registry: HandlerRegistry = .shared
    ) throws(HandlerError) {
        let target = try registry.resolve(id, path: "id")
        try self.init(target: target, bound: bound, invalidation: invalidation, registry: registry)
    }

    /// What a generated reference (`Uploads.finishedHandler(fileID: 7)`) runs: as
    /// ``init(id:bound:invalidation:registry:)``, but when the handler's module is not registered the
    /// error names the table to register.
    ///
    /// - Throws: `HandlerError.moduleNotRegistered`; otherwise as ``init(id:bound:invalidation:registry:)``.
    @_spi(HandlerKitGenerated)
    public convenience init(
        id: String, module: String, table: String, bound: HandlerBindings = [:], invalidation: String? = nil,
        registry: HandlerRegistry = .shared
    ) throws(HandlerError) {
        let target = try registry.resolve(id, module: module, table: table, path: "id")
        try self.init(target: target, bound: bound, invalidation: invalidation, registry: registry)
    }

    private convenience init(
        target: HandlerDescriptor, bound: HandlerBindings, invalidation: String?, registry: HandlerRegistry
    ) throws(HandlerError) {
        let invalidationTarget = try invalidation.map { id throws(HandlerError) in
            try registry.resolve(id, path: "invalidation")
        }
        let context = DecodingContext(registry: registry, limits: .default)
        let values = try Self.encode(bound, target: target, invalidationTarget: invalidationTarget, context: context)
        self.init(
            target: target, invalidationTarget: invalidationTarget, bound: BoundValues(values, context: context),
            context: context)
    }

    init(
        target: HandlerDescriptor, invalidationTarget: HandlerDescriptor?, bound: BoundValues, context: DecodingContext
    ) {
        self.id = target.id
        self.invalidationID = invalidationTarget?.id
        self.target = target
        self.invalidationTarget = invalidationTarget
        self.context = context
        self.state = Locked(State(bound: bound))
    }

    /// The registered function this handler calls: its id and parameters.
    public var descriptor: HandlerDescriptor { target }

    /// The bound values, as stored in the handler's JSON.
    public var boundValues: [String: HandlerValue] {
        state.withLock { $0.bound.dictionary }
    }

    /// Whether the handler has been invalidated.
    public var isInvalidated: Bool {
        state.withLock { $0.isInvalidated }
    }

    // MARK: Binding

    /// Adds or replaces bound values.
    public func bind(_ values: HandlerBindings) throws(HandlerError) {
        let encoded = try Self.encode(values, target: target, invalidationTarget: invalidationTarget, context: context)
        try state.withLock { (state: inout State) throws(HandlerError) in
            guard !state.isInvalidated else { throw .invalidated(handler: id) }
            state.bound = state.bound.merging(encoded)
        }
    }

    // MARK: Calling

    /// Calls the handler with call-time values: a synchronous, `async` or actor-isolated function alike.
    ///
    /// `try await handler.call()` works wherever it is written, top-level code included. From a
    /// synchronous context, use ``callSynchronously(_:)``. A handler returns nothing: `@handler`
    /// functions return `Void` (the attribute refuses others), since a stored handler may run in
    /// another process, where no caller waits for a result.
    ///
    /// - Throws: `HandlerError.invalidated`, `.missingArgument`, `.typeMismatch`; or what the
    ///   function throws.
    public func call(_ arguments: consuming CallArguments = [:]) async throws {
        let bound = try activeBoundValues()
        let handlerArguments = HandlerArguments(handlerID: id, bound: bound, callTime: arguments)
        switch target.invocation {
        case .sync(let invoke): try invoke(handlerArguments)
        case .async(let invoke): try await invoke(handlerArguments)
        }
    }

    /// Calls a synchronous handler with call-time values, from a context that cannot `await`.
    ///
    /// A separate name rather than a synchronous overload of ``call(_:)``: the compiler picks a
    /// synchronous overload in top-level code even under `try await`, which would refuse an `async`
    /// handler there.
    ///
    /// - Throws: `HandlerError.requiresAsync` if the function is `async` or isolated to a global actor
    ///   (call it with `try await handler.call()`); `.invalidated`, `.missingArgument`, `.typeMismatch`;
    ///   or what the function throws.
    public func callSynchronously(_ arguments: consuming CallArguments = [:]) throws {
        let bound = try activeBoundValues()
        guard case .sync(let invoke) = target.invocation else { throw HandlerError.requiresAsync(handler: id) }
        try invoke(HandlerArguments(handlerID: id, bound: bound, callTime: arguments))
    }

    // MARK: Calling from generated typed calls

    /// Runs `body` with the handler's bound values as its arguments: what a generated typed call
    /// (`Mail.callFetchedHandler(handler, ratio: 0.5)`) does, passing its call-time values to
    /// the function directly, type-checked by the compiler and without boxing them.
    ///
    /// - Throws: `HandlerError.wrongHandler` if this handler calls another function than `id`;
    ///   `.invalidated`; `.requiresAsync` for an `async` function; or what `body` throws.
    @_spi(HandlerKitGenerated)
    public func callBound(as id: String, _ body: (HandlerArguments) throws -> Void) throws {
        guard id == self.id else { throw HandlerError.wrongHandler(handler: self.id, expected: id) }
        if target.isAsync { throw HandlerError.requiresAsync(handler: self.id) }
        try body(HandlerArguments(handlerID: self.id, bound: try activeBoundValues(), callTime: [:]))
    }

    /// Runs `body` with the handler's bound values as its arguments, for a generated typed call of
    /// an `async` function or of one isolated to a global actor (see the synchronous overload).
    ///
    /// It runs in the caller's isolation (`isolation`), so the typed call of a `@MainActor` handler,
    /// itself on the main actor, passes its main-actor body and call-time values without sending them.
    @_spi(HandlerKitGenerated)
    public func callBound(
        as id: String, isolation: isolated (any Actor)? = #isolation, _ body: (HandlerArguments) async throws -> Void
    ) async throws {
        guard id == self.id else { throw HandlerError.wrongHandler(handler: self.id, expected: id) }
        try await body(HandlerArguments(handlerID: self.id, bound: try activeBoundValues(), callTime: [:]))
    }

    // MARK: Invalidation

    /// Ends the handler and calls its invalidation target, synchronous, `async` or actor-isolated,
    /// once, with the bound values and `arguments`. The handler ends even if the target then throws.
    ///
    /// - Throws: `HandlerError.invalidated` if it was already invalidated; `.missingArgument` (before
    ///   anything changes) if a mandatory argument of the target is absent; or what the target throws.
    public func invalidate(_ arguments: CallArguments = [:]) async throws {
        guard let handlerArguments = try beginInvalidation(arguments) else { return }
        switch invalidationTarget?.invocation {
        case .sync(let invoke): try invoke(handlerArguments)
        case .async(let invoke): try await invoke(handlerArguments)
        case nil: break
        }
    }

    /// Ends the handler and calls a synchronous invalidation target once, from a context that cannot
    /// `await` (see ``callSynchronously(_:)`` for why this is not an overload of ``invalidate(_:)``).
    ///
    /// - Throws: `HandlerError.requiresAsync` (before anything changes) if the invalidation target is
    ///   `async` or actor-isolated; otherwise as ``invalidate(_:)``.
    public func invalidateSynchronously(_ arguments: CallArguments = [:]) throws {
        if let invalidationTarget, invalidationTarget.isAsync {
            throw HandlerError.requiresAsync(handler: invalidationTarget.id)
        }
        guard let handlerArguments = try beginInvalidation(arguments) else { return }
        if case .sync(let invoke) = invalidationTarget?.invocation { try invoke(handlerArguments) }
    }

    /// Marks the handler invalidated (exactly one caller wins) and returns the invalidation
    /// target's arguments, or `nil` when there is no target.
    private func beginInvalidation(_ arguments: CallArguments) throws(HandlerError) -> HandlerArguments? {
        let bound = try state.withLock { (state: inout State) throws(HandlerError) in
            guard !state.isInvalidated else { throw .invalidated(handler: id) }
            if let invalidationTarget {
                try Self.checkMandatoryArguments(of: invalidationTarget, bound: state.bound, callTime: arguments)
            }
            state.isInvalidated = true
            return state.bound
        }
        guard let invalidationTarget else { return nil }
        return HandlerArguments(handlerID: invalidationTarget.id, bound: bound, callTime: arguments)
    }

    private func activeBoundValues() throws(HandlerError) -> BoundValues {
        try state.withLock { (state: inout State) throws(HandlerError) in
            guard !state.isInvalidated else { throw .invalidated(handler: id) }
            return state.bound
        }
    }

    private static func checkMandatoryArguments(
        of descriptor: HandlerDescriptor, bound: BoundValues, callTime: CallArguments
    ) throws(HandlerError) {
        for parameter in descriptor.parameters where parameter.isMandatory {
            let isBound = bound.value(named: parameter.name).map { $0.value != .null } ?? false
            if !isBound && !callTime.contains(parameter.name) {
                throw .missingArgument(
                    handler: descriptor.id, argument: parameter.name, expectedType: parameter.typeName)
            }
        }
    }

    // MARK: Bound values

    /// Encodes bindings and checks each against the parameter of that name of the target and of
    /// the invalidation target.
    private static func encode(
        _ bindings: HandlerBindings, target: HandlerDescriptor, invalidationTarget: HandlerDescriptor?,
        context: DecodingContext
    ) throws(HandlerError) -> [String: HandlerValue] {
        var values: [String: HandlerValue] = [:]
        for (name, entry) in bindings.entries {
            guard let parameter = target.parameter(named: name) ?? invalidationTarget?.parameter(named: name) else {
                let known = Set(target.parameters.map(\.name) + (invalidationTarget?.parameters.map(\.name) ?? []))
                throw .unknownArgument(handler: target.id, argument: name, known: known.sorted())
            }
            let value: HandlerValue
            switch entry {
            case .notBindable(let typeName):
                throw .notBindable(handler: target.id, argument: name, type: typeName)
            case .encodingFailed(let reason):
                throw .encodingFailed(handler: target.id, argument: parameter.name, reason: reason)
            case .overLimit(let error):
                throw error.bound(to: target.id)
            case .value(let encoded):
                value = encoded
            }
            try checkSize(of: value, named: name, handler: target.id)
            try validate(
                BoundValue(value), named: name, target: target, invalidationTarget: invalidationTarget, context: context
            )
            values[name] = value
        }
        return values
    }

    /// Refuses a value whose JSON alone is larger than a document read with `DecodingLimits.default`
    /// may be. (The document as a whole is checked where it is stored to be read back, e.g. by a
    /// signal center registering a consumer: values bound only to call the handler, as a delivery
    /// binds a signal's payload, need not fit one document together.)
    private static func checkSize(of value: HandlerValue, named name: String, handler: String) throws(HandlerError) {
        let place = ValuePlace.bound(name)
        let survey = value.survey(at: place, maximumLevel: .max, checkingNumbers: false)
        if let size = value.jsonSize(over: ValuePlace.maximumSize, sizeBound: survey.sizeBound) {
            throw .valueTooLarge(handler: handler, path: place.path, size: size, limit: ValuePlace.maximumSize)
        }
    }

    /// Checks `value` against every parameter named `name` of the target and the invalidation target.
    static func validate(
        _ value: BoundValue, named name: String, target: HandlerDescriptor,
        invalidationTarget: HandlerDescriptor?, context: DecodingContext
    ) throws(HandlerError) {
        if let index = target.parameterIndex(named: name) {
            try target.parameters[index].validate(value, handler: target.id, context: context)
        }
        if let invalidationTarget, let index = invalidationTarget.parameterIndex(named: name) {
            try invalidationTarget.parameters[index].validate(value, handler: invalidationTarget.id, context: context)
        }
    }
}

extension Handler: CustomStringConvertible {
    /// E.g. `Handler(Carbons.enabled, bound: [account, limit], invalidation: Carbons.cleanUp)`.
    public var description: String {
        let (names, invalidated) = state.withLock { ($0.bound.names.sorted(), $0.isInvalidated) }
        var text = "Handler(\(id), bound: [\(names.joined(separator: ", "))]"
        if let invalidationID { text += ", invalidation: \(invalidationID)" }
        if invalidated { text += ", invalidated" }
        return text + ")"
    }
}
