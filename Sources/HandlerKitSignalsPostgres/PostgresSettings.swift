// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// Where the PostgreSQL signal store is: server, credentials, database, the schema its tables live
/// in, and how its connections use TLS. Made from a URL
/// (`postgres://user:password@host:port/database?schema=name&sslmode=verify-full&sslrootcert=/path`)
/// or from the environment (`fromEnvironment()`).
public struct PostgresSettings: Sendable, Hashable {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    /// The schema (namespace) of the store's tables, created when missing. Several stores may share a
    /// database under different schemas; they never see each other's signals.
    public var schema: String
    /// Whether and how connections use TLS (libpq's `sslmode`; `prefer` when not given, as libpq).
    public var tlsMode: TLSMode
    /// The root certificates a server's certificate is checked against (libpq's `sslrootcert`): a PEM
    /// file, or `system` for the system's trusted roots. When not given, `~/.postgresql/root.crt` is
    /// used if it exists, as libpq does (and then `require` checks the certificate like `verify-ca`).
    public var tlsRootCertificate: String?
    /// A client certificate (PEM file) sent to a server that asks for one (libpq's `sslcert`).
    public var tlsCertificate: String?
    /// The private key (PEM file) of `tlsCertificate` (libpq's `sslkey`).
    public var tlsKey: String?

    /// How connections use TLS: libpq's `sslmode` values.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// Plain TCP only.
        case disable
        /// TLS when the server offers it, without checking its certificate. (libpq tries plain TCP
        /// first; this store tries TLS first, like `prefer`.)
        case allow
        /// TLS when the server offers it, without checking its certificate; plain TCP otherwise.
        case prefer
        /// TLS or no connection; the certificate is checked only when root certificates are given.
        case require
        /// TLS, with a certificate signed by the root certificates (`tlsRootCertificate`).
        case verifyCA = "verify-ca"
        /// TLS, with a certificate signed by the root certificates and made out to `host`.
        case verifyFull = "verify-full"
    }

    /// The schema used when none is given.
    public static let defaultSchema = "handlerkit_signals"
    /// The environment variable `fromEnvironment()` reads first: a `postgres://` URL.
    public static let urlVariable = "HANDLERKIT_POSTGRES_URL"

    public init(
        host: String = "127.0.0.1", port: Int = 5432, username: String, password: String? = nil,
        database: String, schema: String = defaultSchema, tlsMode: TLSMode = .prefer,
        tlsRootCertificate: String? = nil, tlsCertificate: String? = nil, tlsKey: String? = nil
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.schema = schema
        self.tlsMode = tlsMode
        self.tlsRootCertificate = tlsRootCertificate
        self.tlsCertificate = tlsCertificate
        self.tlsKey = tlsKey
    }

    /// Settings from a URL: `postgres://user[:password]@host[:port]/database[?schema=name]`
    /// (`postgresql://` too). Host defaults to 127.0.0.1, port to 5432, database to the user name.
    /// libpq's `sslmode`, `sslrootcert`, `sslcert` and `sslkey` parameters set the TLS settings.
    ///
    /// - Throws: `SignalError.invalidStoreSettings` naming the part that is wrong (the scheme, the
    ///   host, the port, the user, `sslmode`), with the URL's password left out.
    public init(url text: String) throws(SignalError) {
        let parts = PostgresURLText(text)
        func invalid(_ setting: String, _ reason: String) -> SignalError {
            .invalidStoreSettings(source: parts.redacted, setting: setting, reason: reason)
        }
        if let (setting, reason) = parts.problem() { throw invalid(setting, reason) }
        guard let url = URLComponents(string: text) else {
            throw invalid(
                "URL",
                "it cannot be read as a URL (expected postgres://user:password@host:port/database, with any of "
                    + ": / ? # [ ] @ % in the user name, password or database percent-encoded: %40 for @)")
        }
        guard let user = url.user, !user.isEmpty else {
            throw invalid("user", "the URL names no user (postgres://USER@host/database)")
        }
        let database = String(url.path.drop { $0 == "/" })
        func parameter(_ name: String) -> String? { url.queryItems?.first { $0.name == name }?.value }
        self.init(
            host: url.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1", port: url.port ?? 5432, username: user,
            password: url.password, database: database.isEmpty ? user : database,
            schema: parameter("schema") ?? Self.defaultSchema,
            tlsMode: try Self.tlsMode(parameter("sslmode"), setting: "sslmode", source: parts.redacted),
            tlsRootCertificate: parameter("sslrootcert"), tlsCertificate: parameter("sslcert"),
            tlsKey: parameter("sslkey"))
    }

    /// The mode named `value` (`prefer` for `nil`), given as `setting` of `source`.
    private static func tlsMode(_ value: String?, setting: String, source: String) throws(SignalError) -> TLSMode {
        guard let value, !value.isEmpty else { return .prefer }
        guard let mode = TLSMode(rawValue: value) else {
            throw .invalidStoreSettings(
                source: source, setting: setting,
                reason:
                    "'\(value.prefix(40))' is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        return mode
    }

    /// Settings from `HANDLERKIT_POSTGRES_URL`, else from libpq's variables (`PGHOST`, `PGPORT`,
    /// `PGUSER`, `PGPASSWORD`, `PGDATABASE`) with defaults 127.0.0.1, 5432, `postgres`; `schema`
    /// overrides the URL's. libpq's TLS variables (`PGSSLMODE`, `PGSSLROOTCERT`, `PGSSLCERT`,
    /// `PGSSLKEY`) apply to what the URL does not set, as in libpq.
    ///
    /// - Throws: `SignalError.invalidStoreSettings` naming the URL's part or the variable that is wrong.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        schema: String? = nil
    ) throws(SignalError) -> PostgresSettings {
        var settings: PostgresSettings
        if let url = environment[urlVariable], !url.isEmpty {
            settings = try PostgresSettings(url: url)
        } else {
            let user = environment["PGUSER"] ?? "postgres"
            let portText = environment["PGPORT"] ?? "5432"
            guard let port = PostgresURLText.port(portText) else {
                throw .invalidStoreSettings(
                    source: "the environment", setting: "PGPORT", reason: PostgresURLText.notAPort(portText))
            }
            settings = PostgresSettings(
                host: environment["PGHOST"] ?? "127.0.0.1", port: port, username: user,
                password: environment["PGPASSWORD"], database: environment["PGDATABASE"] ?? user)
        }
        if let schema { settings.schema = schema }
        let url = environment[urlVariable].flatMap { URLComponents(string: $0)?.queryItems } ?? []
        func setByURL(_ name: String) -> Bool { url.contains { $0.name == name && !($0.value ?? "").isEmpty } }
        if !setByURL("sslmode"), let mode = environment["PGSSLMODE"] {
            settings.tlsMode = try tlsMode(mode, setting: "PGSSLMODE", source: "the environment")
        }
        if !setByURL("sslrootcert"), let root = environment["PGSSLROOTCERT"] { settings.tlsRootCertificate = root }
        if !setByURL("sslcert"), let certificate = environment["PGSSLCERT"] { settings.tlsCertificate = certificate }
        if !setByURL("sslkey"), let key = environment["PGSSLKEY"] { settings.tlsKey = key }
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
            throw .invalidStoreSettings(
                source: location, setting: "schema",
                reason:
                    "'\(schema.prefix(60))' is not a schema name the store takes: use 1 to 48 lower-case letters, digits and _, not starting with a digit"
            )
        }
        return schema
    }
}
#endif
