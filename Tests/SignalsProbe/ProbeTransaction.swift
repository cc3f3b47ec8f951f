// Compiled with the package trait `PostgreSQL` only.
#if PostgreSQL
import Foundation
import HandlerKitSignals
import HandlerKitSignalsPostgres
import HandlerKitSignalsTestKit
import Logging
import PostgresNIO

/// `post-in-transaction --postgres URL --signal S --table T --row ID [--kill-before-commit]`: on a
/// connection of its own (the application's), inserts row ID into the table T and posts S with
/// `item` = ID in the same transaction, prints `posted <revision> <deliveries>`, then commits — or,
/// with --kill-before-commit, kills itself with SIGKILL before the commit.
enum TransactionProbe {
    static func run(_ arguments: ProbeArguments, store: any SignalStore) async throws -> Bool {
        guard arguments.command == "post-in-transaction" else { return false }
        guard let store = store as? PostgresSignalStore else {
            throw ProbeError("post-in-transaction needs --postgres")
        }
        let settings = store.settings
        let logger = Logger(label: "probe")
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: settings.host, port: settings.port, username: settings.username, password: settings.password,
                database: settings.database, tls: .disable),
            id: 1, logger: logger)
        let row = try arguments.int("row")
        try await connection.query("BEGIN", logger: logger)
        let table = try arguments.string("table")
        try await connection.query(
            PostgresQuery(unsafeSQL: "INSERT INTO \(table) (id) VALUES ($1)", binds: try bindings(row)), logger: logger)
        let result = try await store.post(
            SignalID(try arguments.string("signal")), payload: ["item": row], in: connection)
        say("posted \(result.revision) \(result.deliveries)")
        if arguments.values["kill-before-commit"] != nil { kill(getpid(), SIGKILL) }
        try await connection.query("COMMIT", logger: logger)
        try await connection.close()
        return true
    }

    private static func bindings(_ row: Int) throws -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(row)
        return bindings
    }
}
#endif
