/// Every error HandlerKit throws. Each message says what was wrong and where: the handler id and
/// argument, or the position in a JSON document (line, column and a path such as `bound.count`).
///
/// Errors thrown by a handler function itself are passed through unchanged.
public enum HandlerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not valid JSON. `line` and `column` are 1-based; `offset` is the byte offset.
    case malformedJSON(reason: String, line: Int, column: Int, offset: Int)
    /// The document is larger than `DecodingLimits.maximumDocumentSize`.
    case documentTooLarge(size: Int, limit: Int)
    /// Arrays and objects nest deeper than `DecodingLimits.maximumDepth`.
    case nestingTooDeep(limit: Int, line: Int, column: Int)
    /// The document's `version` is not one this runtime reads.
    case unsupportedVersion(found: String, supported: Int)
    /// The JSON is well formed but not a handler document; `path` locates the problem.
    case invalidDocument(path: String, reason: String)
    /// No handler with this id is registered. `path` says where the id came from (`id`, `invalidation`, …).
    case unknownHandler(id: String, path: String)
    /// No handler table is registered at all, so no id resolves: register each module's generated
    /// table at start-up (`try HandlerRegistry.shared.register(.myModule)`).
    case noHandlersRegistered(id: String, path: String)
    /// The handler belongs to `module`, whose generated table (`HandlerTable.<table>`) is not registered.
    case moduleNotRegistered(id: String, module: String, table: String)
    /// Two registered handlers share an id.
    case duplicateHandler(id: String, existingModule: String, newModule: String)
    /// A mandatory argument was neither bound nor passed at call time.
    case missingArgument(handler: String, argument: String, expectedType: String)
    /// A value does not have the parameter's type. `found` describes the value; `detail` adds the
    /// decoding problem (e.g. a nested path) when there is one.
    case typeMismatch(handler: String, argument: String, expectedType: String, found: String, detail: String?)
    /// A value was bound to a parameter whose type is not `Codable`: it can only be passed at call time.
    case notBindable(handler: String, argument: String, type: String)
    /// A value was bound under a name that no parameter of the handler or its invalidation target has.
    case unknownArgument(handler: String, argument: String, known: [String])
    /// A value could not be encoded for binding.
    case encodingFailed(handler: String, argument: String, reason: String)
    /// A value nests deeper than a document read with `DecodingLimits.default` may nest
    /// (`DecodingLimits.maximumDepth` levels, counted from the document's outermost object or array),
    /// so no document holding it could be read back. `path` is the first array or object too deep:
    /// in the handler's document for a bound value (`bound.items[3].children[0]`), else from the value
    /// itself (`items[3]`). `handler` is the handler the value was bound to, if any.
    case valueTooDeep(handler: String?, path: String, limit: Int)
    /// A document holding the value at `path` would be at least `size` bytes of JSON, over the largest
    /// document `DecodingLimits.default` reads (`limit`, `DecodingLimits.maximumDocumentSize`), so it
    /// could never be read back. For a value alone, `size` is the value's own JSON; for a whole
    /// document, the document's, and `path` its largest value. `Data` is written as base64, a third
    /// larger than its bytes. `handler` is the handler the value was bound to, if any.
    case valueTooLarge(handler: String?, path: String, size: Int, limit: Int)
    /// `call`, `bind` or `invalidate` on a handler that has been invalidated.
    case invalidated(handler: String)
    /// `callSynchronously` or `invalidateSynchronously` met an `async` or actor-isolated function;
    /// call it with `try await handler.call()` (or `invalidate()`).
    case requiresAsync(handler: String)
    /// A generated typed call for one function was given a handler of another.
    case wrongHandler(handler: String, expected: String)

    public var description: String {
        switch self {
        case .malformedJSON(let reason, let line, let column, let offset):
            "malformed JSON at line \(line), column \(column) (byte \(offset)): \(reason)"
        case .documentTooLarge(let size, let limit):
            "handler JSON is \(size) bytes, over the limit of \(limit) bytes (DecodingLimits.maximumDocumentSize)"
        case .nestingTooDeep(let limit, let line, let column):
            "handler JSON nests deeper than \(limit) levels at line \(line), column \(column) (DecodingLimits.maximumDepth)"
        case .unsupportedVersion(let found, let supported):
            "handler JSON has version \(found); this runtime reads version \(supported)"
        case .invalidDocument(let path, let reason):
            "not a handler document at '\(path)': \(reason)"
        case .unknownHandler(let id, let path):
            "unknown handler id '\(id)' at '\(path)': no @handler function with this id is registered; if it "
                + "belongs to a module whose table is not registered, register that table at start-up, "
                + "e.g. `try HandlerRegistry.shared.register(.myModule)`"
        case .noHandlersRegistered(let id, let path):
            "handler id '\(id)' at '\(path)' cannot be resolved: no handler table is registered; register each "
                + "module's generated table once at start-up, e.g. `try HandlerRegistry.shared.register(.myModule)` "
                + "(the table is named after the module in lower camel case; see the top of its generated file)"
        case .moduleNotRegistered(let id, let module, let table):
            "handler '\(id)' belongs to module \(module), whose handler table is not registered; register it "
                + "once at start-up: `try HandlerRegistry.shared.register(.\(table))`"
        case .duplicateHandler(let id, let existingModule, let newModule):
            "handler id '\(id)' of module \(newModule) is already registered by module \(existingModule)"
        case .missingArgument(let handler, let argument, let expectedType):
            "handler '\(handler)': missing mandatory argument '\(argument)' of type \(expectedType)"
        case .typeMismatch(let handler, let argument, let expectedType, let found, let detail):
            "handler '\(handler)': argument '\(argument)' expects \(expectedType) but found \(found)"
                + (detail.map { " (\($0))" } ?? "")
        case .notBindable(let handler, let argument, let type):
            "handler '\(handler)': argument '\(argument)' of type \(type) is not Codable, so it cannot be bound; pass it at call time"
        case .unknownArgument(let handler, let argument, let known):
            "handler '\(handler)': no parameter named '\(argument)' (parameters: \(known.joined(separator: ", ")))"
        case .encodingFailed(let handler, let argument, let reason):
            "handler '\(handler)': argument '\(argument)' could not be encoded: \(reason)"
        case .valueTooDeep(let handler, let path, let limit):
            (handler.map { "handler '\($0)': " } ?? "")
                + "the value at '\(ValuePath.shown(path))' nests deeper than \(limit) levels (DecodingLimits.maximumDepth, "
                + "counted from its document's outermost object), so no document holding it could be read back; "
                + "give it a flatter shape, or keep deep structures elsewhere and pass a reference to them"
        case .valueTooLarge(let handler, let path, let size, let limit):
            (handler.map { "handler '\($0)': " } ?? "")
                + "a document holding the value at '\(ValuePath.shown(path))' is at least \(size) bytes of JSON, over the "
                + "limit of \(limit) bytes (DecodingLimits.maximumDocumentSize), so it could never be read back; "
                + "Data is written as base64, which makes it a third larger (at most about \(limit / 4 * 3 / 1024) KiB of "
                + "Data fit in a document); keep large content elsewhere (a file, a database) and pass a reference to it"
        case .invalidated(let handler):
            "handler '\(handler)' has been invalidated; it can no longer be called, bound or invalidated"
        case .requiresAsync(let handler):
            "handler '\(handler)' is async or isolated to an actor, so it cannot run synchronously; "
                + "call it with `try await handler.call()` (or `invalidate()`)"
        case .wrongHandler(let handler, let expected):
            "handler '\(handler)' was called through the typed call of '\(expected)'; call it with that function's own typed call or with call(_:)"
        }
    }
}

extension HandlerError {
    /// A limit error of a value being bound, naming the handler it was bound to.
    func bound(to handler: String) -> HandlerError {
        switch self {
        case .valueTooDeep(nil, let path, let limit): .valueTooDeep(handler: handler, path: path, limit: limit)
        case .valueTooLarge(nil, let path, let size, let limit):
            .valueTooLarge(handler: handler, path: path, size: size, limit: limit)
        default: self
        }
    }
}
