// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
import HandlerKitSignals

/// Where the PostgreSQL signal store is: server, credentials, database and the schema its tables
/// live in. Made from a URL (`postgres://user:password@host:port/database?schema=name`) or from the
/// environment (`fromEnvironment()`).
public struct PostgresSettings: Sendable, Hashable {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    /// The schema (namespace) of the store's tables, created when missing. Several stores may share a
    /// database under different schemas; they never see each other's signals.
    public var schema: String

    /// The schema used when none is given.
    public static let defaultSchema = "handlerkit_signals"
    /// The environment variable `fromEnvironment()` reads first: a `postgres://` URL.
    public static let urlVariable = "HANDLERKIT_POSTGRES_URL"

    public init(
        host: String = "127.0.0.1", port: Int = 5432, username: String, password: String? = nil,
        database: String, schema: String = defaultSchema
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.schema = schema
    }

    /// Settings from a URL: `postgres://user[:password]@host[:port]/database[?schema=name]`
    /// (`postgresql://` too). Host defaults to 127.0.0.1, port to 5432, database to the user name.
    public init(url text: String) throws(SignalError) {
        guard let url = URLComponents(string: text), let scheme = url.scheme,
            ["postgres", "postgresql"].contains(scheme)
        else {
            throw .storeUnavailable(
                path: Self.redacted(text),
                reason: "not a postgres:// URL (expected postgres://user:password@host:port/database)")
        }
        guard let user = url.user, !user.isEmpty else {
            throw .storeUnavailable(
                path: Self.redacted(text), reason: "the URL names no user (postgres://USER@host/database)")
        }
        let database = String(url.path.drop { $0 == "/" })
        let schema = url.queryItems?.first { $0.name == "schema" }?.value ?? Self.defaultSchema
        self.init(
            host: url.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1", port: url.port ?? 5432, username: user,
            password: url.password, database: database.isEmpty ? user : database, schema: schema)
    }

    /// Settings from `HANDLERKIT_POSTGRES_URL`, else from libpq's variables (`PGHOST`, `PGPORT`,
    /// `PGUSER`, `PGPASSWORD`, `PGDATABASE`) with defaults 127.0.0.1, 5432, `postgres`; `schema`
    /// overrides the URL's.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        schema: String? = nil
    ) throws(SignalError) -> PostgresSettings {
        var settings: PostgresSettings
        if let url = environment[urlVariable], !url.isEmpty {
            settings = try PostgresSettings(url: url)
        } else {
            let user = environment["PGUSER"] ?? "postgres"
            guard let port = Int(environment["PGPORT"] ?? "5432") else {
                throw .storeUnavailable(
                    path: "PGPORT", reason: "PGPORT is not a port number: \(environment["PGPORT"] ?? "")")
            }
            settings = PostgresSettings(
                host: environment["PGHOST"] ?? "127.0.0.1", port: port, username: user,
                password: environment["PGPASSWORD"], database: environment["PGDATABASE"] ?? user)
        }
        if let schema { settings.schema = schema }
        return settings
    }

    /// The store's location for messages: a URL without the password, and the schema.
    public var location: String {
        "postgres://\(username)@\(host):\(port)/\(database) (schema \(schema))"
    }

    /// Checks the schema name, which is written into SQL: lower-case letters, digits and `_`.
    func validatedSchema() throws(SignalError) -> String {
        let allowed = schema.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
        guard !schema.isEmpty, schema.utf8.count <= 48, allowed, let first = schema.utf8.first,
            !(48...57).contains(first)
        else {
            throw .storeUnavailable(
                path: location,
                reason:
                    "invalid schema name '\(schema.prefix(60))': use 1 to 48 lower-case letters, digits and _, not starting with a digit"
            )
        }
        return schema
    }

    private static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "(unparsable URL)" }
        if components.password != nil { components.password = "***" }
        return components.string ?? "(unparsable URL)"
    }
}
#endif
