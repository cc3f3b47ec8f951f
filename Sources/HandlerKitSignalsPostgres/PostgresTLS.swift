// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import PostgresNIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the store's connections use TLS, made once when the store is made: from the settings'
/// libpq-style `sslmode` and certificate files, or the app's own `PostgresConnection` TLS.
package struct PostgresTLS: Sendable {
    /// What postgres-nio gets for every connection.
    package let tls: PostgresConnection.Configuration.TLS
    /// The name sent with SNI and that the server's certificate must be made out to; `nil` for an
    /// IP address (SNI cannot carry one; the certificate's IP address entries are checked instead).
    package let serverName: String?

    package init(settings: PostgresSettings, appTLS: PostgresConnection.Configuration.TLS?) throws(SignalError) {
        serverName = Self.isIPAddress(settings.host) ? nil : settings.host
        if let appTLS {
            tls = appTLS
            return
        }
        func failure(_ reason: String) -> SignalError {
            .storeUnavailable(path: settings.location, reason: "TLS (sslmode=\(settings.tlsMode.rawValue)): \(reason)")
        }
        let roots = try Self.rootCertificates(settings, failure)
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch settings.tlsMode {
        case .disable:
            tls = .disable
            return
        case .allow, .prefer:
            configuration.certificateVerification = .none
        case .require:
            // As libpq: with root certificates, `require` checks the certificate like `verify-ca`.
            configuration.certificateVerification = roots == nil ? .none : .noHostnameVerification
        case .verifyCA, .verifyFull:
            guard roots != nil else {
                throw failure(
                    "no root certificates to check the server's certificate with: set sslrootcert (PGSSLROOTCERT) to a PEM file, or to 'system' for the system's trusted roots (~/.postgresql/root.crt does not exist)"
                )
            }
            configuration.certificateVerification =
                settings.tlsMode == .verifyFull ? .fullVerification : .noHostnameVerification
        }
        if let roots { configuration.trustRoots = roots }
        switch (settings.tlsCertificate, settings.tlsKey) {
        case (nil, nil):
            break
        case (let certificate?, let key?):
            configuration.certificateChain = try Self.certificates(certificate, "sslcert", failure).map {
                .certificate($0)
            }
            do {
                configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
            } catch {
                throw failure("cannot read the client key sslkey \(key): \(error)")
            }
        case (_?, nil):
            throw failure(
                "sslcert is set but sslkey is not: give both (the client certificate and its key), or neither")
        case (nil, _?):
            throw failure(
                "sslkey is set but sslcert is not: give both (the client certificate and its key), or neither")
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw failure("cannot set up TLS: \(error)")
        }
        tls = settings.tlsMode == .allow || settings.tlsMode == .prefer ? .prefer(context) : .require(context)
    }

    /// The trust roots `settings` names: its file, the system's (`system`), libpq's default file when
    /// it exists, or `nil` for none.
    private static func rootCertificates(
        _ settings: PostgresSettings, _ failure: (String) -> SignalError
    ) throws(SignalError) -> NIOSSLTrustRoots? {
        if settings.tlsRootCertificate == "system" { return .default }
        if let path = settings.tlsRootCertificate, !path.isEmpty {
            return .certificates(try certificates(path, "sslrootcert", failure))
        }
        let standard = FileManager.default.homeDirectoryForCurrentUser.path + "/.postgresql/root.crt"
        guard settings.tlsMode != .disable, FileManager.default.fileExists(atPath: standard) else { return nil }
        return .certificates(try certificates(standard, "the default root certificate file", failure))
    }

    /// The certificates of a PEM file, or a failure naming the file and the setting.
    private static func certificates(
        _ path: String, _ setting: String, _ failure: (String) -> SignalError
    ) throws(SignalError) -> [NIOSSLCertificate] {
        let found: [NIOSSLCertificate]
        do {
            found = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            let reason = FileManager.default.isReadableFile(atPath: path) ? "\(error)" : "no readable file there"
            throw failure("cannot read \(setting) \(path): \(reason)")
        }
        guard !found.isEmpty else { throw failure("\(setting) \(path) holds no PEM certificate") }
        return found
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
#endif
