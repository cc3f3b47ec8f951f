import Foundation
import HandlerKitSignals
import HandlerKitSignalsInspection
import HandlerKitSignalsPostgres
import HandlerKitSignalsSQLite
import Logging

/// A signal store named by an operator: the path of an SQLite store's database file, or a
/// `postgres://` URL (with `?schema=NAME`). The operators' tools open it read-only to look, and for
/// changing only for an action.
package struct StoreLocation: Sendable {
    /// The path or URL as given.
    package var text: String
    /// The tool and the package trait it is built with, for the message of a tool built without
    /// the trait `PostgreSQL` that is given a URL.
    package var tool: String
    package var trait: String
    /// For a PostgreSQL store: how long to keep trying to reach its server while it cannot be
    /// reached (its `Options.reconnectFor`).
    package var connectTimeout = Duration.seconds(3)
    /// The tool's option that sets ``connectTimeout``, named by the error of a server that stays
    /// unreachable; `nil`: the store's own setting is named.
    package var connectTimeoutOption: String?
    /// When set, a PostgreSQL store's own log lines (its connections, each try to reach the server)
    /// are left out, and this is called once, with a line for the operator, when the server does not
    /// answer at first.
    package var onWaitingForServer: (@Sendable (String) -> Void)?

    package init(_ text: String, tool: String, trait: String) {
        self.text = text
        self.tool = tool
        self.trait = trait
    }

    /// Whether `text` names a PostgreSQL store.
    package var isPostgres: Bool { text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") }

    /// The store opened read-only, for an inspector: looking writes nothing and makes no store.
    package func openForReading() throws -> SignalStoreInspector {
        SignalStoreInspector(store: try open(readsOnly: true))
    }

    /// The store opened for an action (after checking, read-only, that it is a signal store: an
    /// action never makes a new store).
    package func openForChanging() async throws -> SignalStoreInspector {
        _ = try await openForReading().store.statistics()
        return SignalStoreInspector(store: try open(readsOnly: false))
    }

    /// Closes what a store opened by ``openForChanging()`` holds open that its release does not
    /// close: a PostgreSQL store's connections. A long-running tool calls it after each action.
    package static func close(_ inspector: SignalStoreInspector) async {
        #if PostgreSQL
        if let store = inspector.store as? PostgresSignalStore { await store.close() }
        #endif
    }

    private func open(readsOnly: Bool) throws -> any InspectableSignalStore {
        if !isPostgres, let separator = text.range(of: "://") {
            // A URL, yet not a PostgreSQL one: not a file to look for. Its user and password stay out.
            throw SignalError.invalidStoreSettings(
                source: String(text[..<separator.upperBound]) + "…", setting: "scheme",
                reason:
                    "'\(text[..<separator.lowerBound].prefix(40))' names no store \(tool) opens: give the path of an SQLite store's database file, or a postgres:// URL"
            )
        }
        if isPostgres {
            #if PostgreSQL
            let settings = try PostgresSettings(url: text)
            var options = PostgresSignalStore.Options()
            options.reconnectFor = connectTimeout
            // Each try to connect within the time given, and no more than the tools always allowed.
            options.connectionTimeout = min(.seconds(5), max(.seconds(1), connectTimeout))
            if let connectTimeoutOption { options.reconnectForName = connectTimeoutOption }
            if let onWaitingForServer {
                let notice = WaitingNotice(
                    server: "\(settings.host):\(settings.port)", connectTimeout: connectTimeout,
                    option: connectTimeoutOption, say: onWaitingForServer)
                options.logger = Logger(label: tool) { _ in notice }
            }
            return readsOnly
                ? try PostgresSignalStore(inspecting: settings, options: options)
                : try PostgresSignalStore(settings: settings, options: options)
            #else
            throw SignalError.storeUnavailable(
                path: "postgres URL",
                reason:
                    "this \(tool) was built without HandlerKit's package trait PostgreSQL; build it with --traits \(trait),PostgreSQL"
            )
            #endif
        }
        let options = SQLiteSignalStore.Options(busyTimeout: .seconds(5))
        return readsOnly
            ? try SQLiteSignalStore(inspecting: text, options: options)
            : try SQLiteSignalStore(path: text, options: options)
    }
}
