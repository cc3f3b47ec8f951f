#if SignalsCommandLine
import ArgumentParser
import Foundation
import HandlerKitSignals
import HandlerKitSignalsPostgres
import HandlerKitSignalsSQLite

/// The store a command works on, and how its output is written.
struct StoreOptions: ParsableArguments {
    @Argument(help: "The store: an SQLite database file, or a postgres:// URL.")
    var store: String

    @Flag(help: "Write JSON (for scripts) instead of text.")
    var json = false

    /// Whether `store` names a PostgreSQL store.
    var isPostgres: Bool { store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") }

    /// The store opened read-only, for an inspector.
    func openForReading() throws -> SignalStoreInspector {
        SignalStoreInspector(store: try open(readsOnly: true))
    }

    /// The store opened for an action (after checking, read-only, that it is a signal store: an
    /// action never makes a new store).
    func openForChanging() async throws -> SignalStoreInspector {
        _ = try await openForReading().store.statistics()
        return SignalStoreInspector(store: try open(readsOnly: false))
    }

    private func open(readsOnly: Bool) throws -> any InspectableSignalStore {
        if isPostgres {
            #if PostgreSQL
            let settings = try PostgresSettings(url: store)
            var options = PostgresSignalStore.Options()
            options.reconnectFor = .seconds(3)
            options.connectionTimeout = .seconds(5)
            return readsOnly
                ? try PostgresSignalStore(inspecting: settings, options: options)
                : try PostgresSignalStore(settings: settings, options: options)
            #else
            throw SignalError.storeUnavailable(
                path: "postgres URL",
                reason:
                    "this handlerkit-signals was built without HandlerKit's package trait PostgreSQL; build it with --traits SignalsCommandLine,PostgreSQL"
            )
            #endif
        }
        let options = SQLiteSignalStore.Options(busyTimeout: .seconds(5))
        return readsOnly
            ? try SQLiteSignalStore(inspecting: store, options: options)
            : try SQLiteSignalStore(path: store, options: options)
    }
}

/// The filters of deliveries and consumers.
struct FilterOptions: ParsableArguments {
    @Option(help: "Only those of this component.")
    var component: String?

    @Option(help: "Only those of this signal id.")
    var signal: String?

    @Option(help: "Only those whose handler has this id.")
    var handler: String?

    @Option(help: "Only those of this consumer id.")
    var consumer: String?

    @Option(
        help: ArgumentHelp(
            "Only those made longer ago than this: 90s, 15m, 2h or 3d.", valueName: "age"))
    var olderThan: Age?

    func deliveries(states: Set<DeliveryFilter.State>?, limit: Int? = nil, now: Date) -> DeliveryFilter {
        DeliveryFilter(
            states: states, component: component, signalID: signal, handlerID: handler,
            consumerID: consumer.map(ConsumerID.init),
            madeBefore: olderThan.map { now.addingTimeInterval(-$0.seconds) },
            limit: limit)
    }
}

/// An age on the command line: a number and a unit (s, m, h, d).
struct Age: ExpressibleByArgument, Sendable {
    var seconds: Double

    init?(argument: String) {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        guard let unit = argument.last.flatMap({ units[$0] }), let number = Double(argument.dropLast()), number >= 0
        else { return nil }
        seconds = number * unit
    }

    static var defaultCompletionKind: CompletionKind { .default }
}

extension DeliveryFilter.State: ExpressibleByArgument {}
#endif
