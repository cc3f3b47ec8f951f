import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import Testing

/// A store the behavioural tests run against: the scenarios (`ProcessScenarios`, …) take one, and
/// each test target passes its own (`HandlerKitSignalsTests`: in memory and SQLite, no server;
/// `HandlerKitSignalsPostgresTests`: PostgreSQL).
package struct StoreKind: Sendable, CustomTestStringConvertible {
    package let name: String
    /// Opens a store whose files (if any) live in `folder`; called again with the same folder, it opens the same store.
    package let open: @Sendable (_ folder: String) throws -> any SignalStore
    /// The arguments that make the probe (handlerkit-signals-probe) open the store `open` opens for `folder`.
    package let probeArguments: @Sendable (_ folder: String) throws -> [String]

    package init(
        name: String, open: @escaping @Sendable (_ folder: String) throws -> any SignalStore,
        probeArguments: @escaping @Sendable (_ folder: String) throws -> [String]
    ) {
        self.name = name
        self.open = open
        self.probeArguments = probeArguments
    }

    package var testDescription: String { name }

    package static let sqlite = StoreKind(
        name: "SQLite",
        open: { folder in
            try SQLiteSignalStore(path: folder + "/signals.sqlite", options: .init(busyTimeout: .seconds(20)))
        },
        probeArguments: { folder in ["--db", folder + "/signals.sqlite"] })

    package static let memory = StoreKind(
        name: "in memory", open: { _ in InMemorySignalStore() },
        probeArguments: { _ in
            throw StoreKindError(description: "the in-memory store is not shared with other processes")
        })
}

package struct StoreKindError: Error, CustomStringConvertible {
    package var description: String
}

/// A fresh folder under the temporary directory, removed when the value is released.
package final class TemporaryFolder: Sendable {
    package let path: String

    package init() {
        path = FileManager.default.temporaryDirectory
            .appending(path: "handlerkit-signals-\(UUID().uuidString)").path(percentEncoded: false)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A center that delivers only when `deliverDue()` is called, so tests decide when.
package func manualCenter(
    _ component: String, store: any SignalStore, registry: HandlerRegistry, retry: RetryPolicy = RetryPolicy()
) async throws -> SignalCenter {
    try await SignalCenter.start(
        component: component, store: store, registry: registry,
        options: .init(retry: retry, deliversAutomatically: false))
}

extension SignalStoreStatistics {
    /// Nothing left but `completions` in the history.
    package init(completions: Int) {
        self.init()
        self.completions = completions
    }
}

/// A registry with one handler, `Queue.work(item: Int)`, that runs `work` with its item: the work
/// queue tests' handler, each test saying what it does.
package func queueWorkRegistry(_ work: @escaping @Sendable (Int) async throws -> Void) throws -> HandlerRegistry {
    let registry = HandlerRegistry()
    try registry.register(
        HandlerTable(
            module: "Queue",
            handlers: [
                HandlerDescriptor(
                    id: "Queue.work", parameters: [.required("item", Int.self)],
                    invokeAsync: { arguments in try await work(try arguments.required("item")) })
            ]))
    return registry
}
