// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsPostgres
import PostgresNIO
import SignalsTestSupport
import Testing

/// TLS with libpq's `sslmode` and `sslrootcert`, against the test server: it accepts TLS with a
/// certificate for `localhost` signed by a test authority that Scripts/with-postgres.sh makes
/// (`HANDLERKIT_POSTGRES_TLS`/ca.crt), and plain connections.
@Suite("Signals on PostgreSQL: TLS")
struct PostgresTLSTests {
    let folder = TemporaryFolder()

    /// The folder of the test server's certificates.
    func certificates() throws -> String {
        _ = try PostgresTestServer.requireURL()
        return try #require(
            PostgresTestServer.environment["HANDLERKIT_POSTGRES_TLS"],
            "HANDLERKIT_POSTGRES_TLS is not set: run the tests with Scripts/with-postgres.sh, which makes the server's certificates"
        )
    }

    /// The test server's URL with `host`, a schema of this test's own, and `parameters`.
    func url(host: String, _ parameters: String) throws -> String {
        var components = try #require(URLComponents(string: try PostgresTestServer.requireURL()))
        components.host = host
        let base = try #require(components.string)
        return base + "?schema=\(PostgresTestServer.schema(for: folder.path))&" + parameters
    }

    /// Connects and migrates a store at `url`; its answer to a first question.
    func open(_ url: String, options: PostgresSignalStore.Options = .init()) async throws -> Int {
        let store = try PostgresSignalStore(url: url, options: options)
        try await store.prepare()
        return try await store.statistics().consumers
    }

    /// The error `open` throws for `url`.
    func refusal(_ url: String, options: PostgresSignalStore.Options = .init()) async throws -> String {
        var options = options
        options.reconnectFor = .seconds(5)
        do {
            _ = try await open(url, options: options)
            Issue.record("connected to \(url)")
            return ""
        } catch let error as SignalError {
            guard case .storeUnavailable = error else {
                Issue.record("expected storeUnavailable, got \(error)")
                return ""
            }
            return error.description
        }
    }

    @Test func verifyFullConnectsToTheHostItsCertificateNames() async throws {
        let ca = try certificates() + "/ca.crt"
        #expect(try await open(try url(host: "localhost", "sslmode=verify-full&sslrootcert=\(ca)")) == 0)
        // verify-ca does not check the name: the same server through its address.
        #expect(try await open(try url(host: "127.0.0.1", "sslmode=verify-ca&sslrootcert=\(ca)")) == 0)
        // As libpq: `require` with root certificates checks them like verify-ca.
        #expect(try await open(try url(host: "127.0.0.1", "sslmode=require&sslrootcert=\(ca)")) == 0)
        #expect(try await open(try url(host: "127.0.0.1", "sslmode=disable")) == 0)
    }

    @Test func aCertificateOfAnotherAuthorityIsRefusedNamingTheCause() async throws {
        let other = try certificates() + "/other-ca.crt"
        let message = try await refusal(try url(host: "localhost", "sslmode=verify-full&sslrootcert=\(other)"))
        #expect(message.contains("TLS"), "\(message)")
        #expect(message.contains("certificate"), "\(message)")
        #expect(message.contains("not signed by the root certificates"), "\(message)")
        #expect(!message.contains("retries"), "refused at once, not retried as an outage: \(message)")
        // Without checking (prefer, require without roots) the same server is accepted.
        #expect(try await open(try url(host: "localhost", "sslmode=require")) == 0)
    }

    @Test func aCertificateForAnotherHostIsRefusedNamingTheHost() async throws {
        let ca = try certificates() + "/ca.crt"
        let message = try await refusal(try url(host: "127.0.0.1", "sslmode=verify-full&sslrootcert=\(ca)"))
        #expect(message.contains("TLS"), "\(message)")
        #expect(message.contains("not made out to 127.0.0.1"), "\(message)")
        #expect(!message.contains("retries"), "refused at once, not retried as an outage: \(message)")
    }

    @Test func theAppsOwnTLSContextIsUsed() async throws {
        let ca = try certificates() + "/ca.crt"
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(ca))
        var options = PostgresSignalStore.Options()
        options.tls = .require(try NIOSSLContext(configuration: configuration))
        #expect(try await open(try url(host: "localhost", ""), options: options) == 0)
        // The same context checks the host name: refused through the address, at once, naming the cause.
        let message = try await refusal(try url(host: "127.0.0.1", ""), options: options)
        #expect(message.contains("TLS"), "\(message)")
        #expect(message.contains("not made out to 127.0.0.1"), "\(message)")
        #expect(!message.contains("retries"), "refused at once, not retried as an outage: \(message)")
    }

    @Test func settingsThatCannotWorkAreRefusedWhenTheStoreIsMade() throws {
        let base = "postgres://app@127.0.0.1/app?"
        let missing = folder.path + "/missing.crt"
        let unreadable = #expect(throws: SignalError.self) {
            try PostgresSignalStore(url: base + "sslmode=verify-full&sslrootcert=\(missing)")
        }
        #expect(
            unreadable?.description.contains("cannot read sslrootcert \(missing): no readable file there") == true,
            "\(String(describing: unreadable))")
        let noRoots = #expect(throws: SignalError.self) {
            try PostgresSignalStore(url: base + "sslmode=verify-ca")
        }
        #expect(noRoots?.description.contains("no root certificates") == true, "\(String(describing: noRoots))")
        let halfClient = #expect(throws: SignalError.self) {
            try PostgresSignalStore(url: base + "sslcert=/tmp/client.crt")
        }
        #expect(halfClient?.description.contains("sslcert is set but sslkey is not") == true)
        let unknownMode = #expect(throws: SignalError.self) { try PostgresSettings(url: base + "sslmode=strict") }
        #expect(
            unknownMode?.description.hasPrefix("invalid sslmode in the signal store settings postgres://") == true,
            "\(String(describing: unknownMode))")
        #expect(
            unknownMode?.description.hasSuffix(
                ": 'strict' is not one of disable, allow, prefer, require, verify-ca, verify-full") == true,
            "\(String(describing: unknownMode))")
    }

    @Test func urlParametersAndLibpqVariablesSetTheTLSSettings() throws {
        let parsed = try PostgresSettings(
            url:
                "postgres://app@db.internal/app?sslmode=verify-full&sslrootcert=/etc/ca.pem&sslcert=/c.pem&sslkey=/k.pem"
        )
        #expect(parsed.tlsMode == .verifyFull)
        #expect(parsed.tlsRootCertificate == "/etc/ca.pem")
        #expect(parsed.tlsCertificate == "/c.pem" && parsed.tlsKey == "/k.pem")
        #expect(try PostgresSettings(url: "postgres://app@db/app").tlsMode == .prefer, "libpq's default")

        let fromVariables = try PostgresSettings.fromEnvironment([
            "PGHOST": "db", "PGUSER": "app", "PGSSLMODE": "verify-ca", "PGSSLROOTCERT": "system",
        ])
        #expect(fromVariables.tlsMode == .verifyCA && fromVariables.tlsRootCertificate == "system")
        // The URL's own parameters win over the variables, as in libpq.
        let mixed = try PostgresSettings.fromEnvironment([
            "HANDLERKIT_POSTGRES_URL": "postgres://app@db/app?sslmode=disable", "PGSSLMODE": "verify-full",
            "PGSSLROOTCERT": "/etc/ca.pem",
        ])
        #expect(mixed.tlsMode == .disable && mixed.tlsRootCertificate == "/etc/ca.pem")
        #expect(throws: SignalError.self) {
            try PostgresSettings.fromEnvironment(["PGUSER": "app", "PGSSLMODE": "on"])
        }
    }
}
#endif
