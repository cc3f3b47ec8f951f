/// The handlers that can be rebuilt and invoked. Only functions registered here — generated from
/// `@handler` declarations — are reachable from a handler document: JSON can name an id, never code.
public final class HandlerRegistry: Sendable {
    private struct Entry {
        var module: String
        var descriptor: HandlerDescriptor
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Former ids (`@handler(formerly:)`) and the current id each rebuilds to.
        var formerIDs: [String: String] = [:]
        /// The same handlers (and their parameter names) by their bytes, for reading documents.
        var index = RegistryIndex.empty
        /// Every module whose table is registered, also one without handlers.
        var modules: Set<String> = []

        /// The module that registered `name` as an id or a former id, if any.
        func module(registering name: String) -> String? {
            entries[name]?.module ?? formerIDs[name].flatMap { entries[$0]?.module }
        }
    }

    private let state = Locked(State())

    /// The registry handlers use unless given another one.
    public static let shared = HandlerRegistry()

    /// An empty registry (e.g. one per test, or per plug-in).
    public init() {}

    /// Registers every handler of a module. Registering the same module again replaces its
    /// handlers; an id or former id that another module already registered (as an id or a former id)
    /// is an error and registers nothing.
    public func register(_ table: HandlerTable) throws(HandlerError) {
        try state.withLock { (state: inout State) throws(HandlerError) in
            var seen: Set<String> = []
            for descriptor in table.handlers {
                for name in CollectionOfOne(descriptor.id) + descriptor.formerIDs {
                    if !seen.insert(name).inserted {
                        throw .duplicateHandler(id: name, existingModule: table.module, newModule: table.module)
                    }
                    if let existing = state.module(registering: name), existing != table.module {
                        throw .duplicateHandler(id: name, existingModule: existing, newModule: table.module)
                    }
                }
            }
            state.formerIDs = state.formerIDs.filter { state.entries[$0.value]?.module != table.module }
            for descriptor in table.handlers {
                state.entries[descriptor.id] = Entry(module: table.module, descriptor: descriptor)
                for former in descriptor.formerIDs { state.formerIDs[former] = descriptor.id }
            }
            state.index = RegistryIndex(state.entries.values.map(\.descriptor))
            state.modules.insert(table.module)
        }
    }

    /// The handler registered under `id`, or under a former id `id` (then its current id differs).
    public func descriptor(for id: String) -> HandlerDescriptor? {
        state.withLock { state in
            state.entries[id]?.descriptor ?? state.formerIDs[id].flatMap { state.entries[$0]?.descriptor }
        }
    }

    /// The registered ids, sorted.
    public var registeredIDs: [String] {
        state.withLock { $0.entries.keys.sorted() }
    }

    /// The current index of the handlers by their bytes (taken once per document).
    var index: RegistryIndex {
        state.withLock { $0.index }
    }

    /// The modules whose tables are registered, sorted.
    public var registeredModules: [String] {
        state.withLock { $0.modules.sorted() }
    }

    /// The handler registered under `id` or a former id `id`.
    ///
    /// - Throws: `HandlerError.noHandlersRegistered` when no table is registered at all (the usual
    ///   cause: the start-up registration is missing), else `.unknownHandler`.
    func resolve(_ id: String, path: String) throws(HandlerError) -> HandlerDescriptor {
        let (descriptor, isEmpty) = state.withLock { state in
            (
                state.entries[id]?.descriptor ?? state.formerIDs[id].flatMap { state.entries[$0]?.descriptor },
                state.modules.isEmpty
            )
        }
        guard let descriptor else {
            throw isEmpty ? .noHandlersRegistered(id: id, path: path) : .unknownHandler(id: id, path: path)
        }
        return descriptor
    }

    /// The handler `id` of `module`, for generated code that knows both.
    ///
    /// - Throws: `HandlerError.moduleNotRegistered`, naming the table to register, when `module`'s
    ///   table is not registered; else as ``resolve(_:path:)``.
    func resolve(_ id: String, module: String, table: String, path: String) throws(HandlerError) -> HandlerDescriptor {
        let isRegistered = state.withLock { $0.modules.contains(module) }
        guard isRegistered else { throw .moduleNotRegistered(id: id, module: module, table: table) }
        return try resolve(id, path: path)
    }
}
