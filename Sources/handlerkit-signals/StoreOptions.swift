#if SignalsCommandLine
import ArgumentParser
import Foundation
import HandlerKitSignals
import HandlerKitSignalsInspection
import SignalStoreOpening

/// The store a command works on, and how its output is written.
struct StoreOptions: ParsableArguments {
    @Argument(help: "The store: an SQLite database file, or a postgres:// URL.")
    var store: String

    @Flag(help: "Write JSON (for scripts) instead of text.")
    var json = false

    @Option(
        name: .customLong("connect-timeout"),
        help: ArgumentHelp(
            "For a postgres:// store: how long to keep trying to reach the server, in seconds.",
            valueName: "seconds"))
    var connectTimeout: Double = 10

    func validate() throws {
        guard connectTimeout.isFinite, connectTimeout >= 0.1, connectTimeout <= 3_600 else {
            throw ValidationError("--connect-timeout takes seconds from 0.1 to 3600, found \(connectTimeout)")
        }
    }

    /// Where the store is. A PostgreSQL server that does not answer at first is said in one line
    /// on standard error, and tried for `--connect-timeout`.
    var location: StoreLocation {
        var location = StoreLocation(store, tool: "handlerkit-signals", trait: "SignalsCommandLine")
        location.connectTimeout = .milliseconds(Int64((connectTimeout * 1_000).rounded()))
        location.connectTimeoutOption = "--connect-timeout SECONDS"
        location.onWaitingForServer = { line in
            FileHandle.standardError.write(Data("handlerkit-signals: \(line)\n".utf8))
        }
        return location
    }

    /// The store opened read-only, for an inspector.
    func openForReading() throws -> SignalStoreInspector {
        try location.openForReading()
    }

    /// The store opened for an action (after checking, read-only, that it is a signal store: an
    /// action never makes a new store).
    func openForChanging() async throws -> SignalStoreInspector {
        try await location.openForChanging()
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

    @Option(help: "Only those posted with this ordering key.")
    var orderingKey: String?

    @Option(
        help: ArgumentHelp(
            "Only those made longer ago than this: 90s, 15m, 2h or 3d.", valueName: "age"))
    var olderThan: Age?

    func deliveries(states: Set<DeliveryFilter.State>?, limit: Int? = nil, now: Date) -> DeliveryFilter {
        DeliveryFilter(
            states: states, component: component, signalID: signal, handlerID: handler,
            consumerID: consumer.map(ConsumerID.init), orderingKey: orderingKey,
            madeBefore: olderThan.map { now.addingTimeInterval(-$0.seconds) },
            limit: limit)
    }
}

/// An age on the command line: a number and a unit (s, m, h, d).
extension Age: ExpressibleByArgument {
    package init?(argument: String) {
        self.init(argument)
    }

    package static var defaultCompletionKind: CompletionKind { .default }
}

extension DeliveryFilter.State: ExpressibleByArgument {}
#endif
