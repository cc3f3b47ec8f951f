import Foundation
import GRDB
import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit

#if PostgreSQL
import HandlerKitSignalsPostgres
import Logging
import PostgresNIO
#endif

/// `post-in-transaction --db PATH | --postgres URL --signal S --table T --row ID [--kill-before-commit]`:
/// on a connection of its own (the application's: a GRDB queue on the store's file, or a postgres-nio
/// connection), inserts row ID into the table T and posts S with `item` = ID in the same
/// transaction, prints `posted <revision> <deliveries>`, then commits — or, with
/// --kill-before-commit, kills itself with SIGKILL before the commit.
enum TransactionProbe {
    static func run(_ arguments: ProbeArguments, store: any SignalStore) async throws -> Bool {
        guard arguments.command == "post-in-transaction" else { return false }
        let (signal, table, row) = (
            try arguments.string("signal"), try arguments.string("table"), try arguments.int("row")
        )
        let kills = arguments.values["kill-before-commit"] != nil
        if let store = store as? SQLiteSignalStore {
            try await DatabaseQueue(path: store.path).write { db in
                try db.execute(sql: "INSERT INTO \(table) (id) VALUES (?)", arguments: [row])
                let result = try store.post(SignalID(signal), payload: ["item": row], in: db)
                say("posted \(result.revision) \(result.deliveries)")
                if kills { kill(getpid(), SIGKILL) }
            }
            return true
        }
        #if PostgreSQL
        guard let store = store as? PostgresSignalStore else {
            throw ProbeError("post-in-transaction: an unknown store")
        }
        let settings = store.settings
        let logger = Logger(label: "probe")
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: settings.host, port: settings.port, username: settings.username, password: settings.password,
                database: settings.database, tls: .disable),
            id: 1, logger: logger)
        var bindings = PostgresBindings()
        bindings.append(row)
        try await connection.query("BEGIN", logger: logger)
        try await connection.query(
            PostgresQuery(unsafeSQL: "INSERT INTO \(table) (id) VALUES ($1)", binds: bindings), logger: logger)
        let result = try await store.post(SignalID(signal), payload: ["item": row], in: connection)
        say("posted \(result.revision) \(result.deliveries)")
        if kills { kill(getpid(), SIGKILL) }
        try await connection.query("COMMIT", logger: logger)
        try await connection.close()
        return true
        #else
        throw ProbeError("post-in-transaction: an unknown store")
        #endif
    }
}
