/// The handlers that can be rebuilt and invoked. Only functions registered here — generated from
/// `@handler` declarations — are reachable from a handler document: JSON can name an id, never code.
public final class HandlerRegistry: Sendable {
    private struct Entry {
        var module: String
        var descriptor: HandlerDescriptor
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// The same handlers (and their parameter names) by their bytes, for reading documents.
        var index = RegistryIndex.empty
    }

    private let state = Locked(State())

    /// The registry handlers use unless given another one.
    public static let shared = HandlerRegistry()

    /// An empty registry (e.g. one per test, or per plug-in).
    public init() {}

    /// Registers every handler of a module. Registering the same module again replaces its
    /// handlers; an id that another module already registered is an error and registers nothing.
    public func register(_ table: HandlerTable) throws(HandlerError) {
        try state.withLock { (state: inout State) throws(HandlerError) in
            var seen: Set<String> = []
            for descriptor in table.handlers {
                if !seen.insert(descriptor.id).inserted {
                    throw .duplicateHandler(id: descriptor.id, existingModule: table.module, newModule: table.module)
                }
                if let existing = state.entries[descriptor.id], existing.module != table.module {
                    throw .duplicateHandler(id: descriptor.id, existingModule: existing.module, newModule: table.module)
                }
            }
            for descriptor in table.handlers {
                state.entries[descriptor.id] = Entry(module: table.module, descriptor: descriptor)
            }
            state.index = RegistryIndex(state.entries.values.map(\.descriptor))
        }
    }

    /// The handler registered under `id`, if any.
    public func descriptor(for id: String) -> HandlerDescriptor? {
        state.withLock { $0.entries[id]?.descriptor }
    }

    /// The registered ids, sorted.
    public var registeredIDs: [String] {
        state.withLock { $0.entries.keys.sorted() }
    }

    /// The current index of the handlers by their bytes (taken once per document).
    var index: RegistryIndex {
        state.withLock { $0.index }
    }

    func resolve(_ id: String, path: String) throws(HandlerError) -> HandlerDescriptor {
        guard let descriptor = descriptor(for: id) else { throw .unknownHandler(id: id, path: path) }
        return descriptor
    }
}
