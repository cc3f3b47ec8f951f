// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsPostgres
import Testing

/// Settings that are wrong are configuration errors naming the part that is wrong, never the error
/// of a server that cannot be reached (which a caller retries), and never with the password.
@Suite("Signals on PostgreSQL: wrong settings")
struct PostgresSettingsTests {
    /// The settings error `body` throws: its setting and message.
    func invalid(
        _ body: () throws(SignalError) -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) -> (setting: String, reason: String, description: String)? {
        do {
            try body()
        } catch .invalidStoreSettings(let source, let setting, let reason) {
            let error = SignalError.invalidStoreSettings(source: source, setting: setting, reason: reason)
            return (setting, reason, error.description)
        } catch {
            Issue.record("expected invalidStoreSettings, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
        Issue.record("expected invalidStoreSettings, nothing was thrown", sourceLocation: sourceLocation)
        return nil
    }

    @Test(arguments: [
        ("postgres://app@db:notaport/app", "port", "'notaport' is not a port number (1 to 65535)"),
        ("postgres://app@db:99999/app", "port", "'99999' is not a port number (1 to 65535)"),
        ("postgres://app@db:0/app", "port", "'0' is not a port number (1 to 65535)"),
        ("postgres://app:secret@db:/app", "port", "the URL has a ':' after the host but no port number"),
        ("postgres://app@[::1]:x/app", "port", "'x' is not a port number (1 to 65535)"),
        ("mysql://app@db/app", "scheme", "'mysql' is not postgres or postgresql"),
        ("db.internal:5432/app", "URL", "it is not a URL"),
        ("postgres://db.internal/app", "user", "the URL names no user"),
        ("postgres://app@db bad/app", "host", "'db bad' is not a host name or address"),
        ("postgres://app@db/app?sslmode=strict", "sslmode", "'strict' is not one of disable, allow, prefer"),
        ("postgres://app@db/app?schema=Drop;Table", "schema", "'Drop;Table' is not a schema name the store takes"),
        ("postgres://app@[::1/app", "URL", "it cannot be read as a URL"),
    ])
    func aWrongPartOfAURLIsNamed(url: String, setting: String, reason: String) throws {
        let found = invalid { () throws(SignalError) in _ = try PostgresSignalStore(url: url) }
        #expect(found?.setting == setting, "\(url): \(String(describing: found))")
        #expect(found?.reason.contains(reason) == true, "\(url): \(String(describing: found))")
        #expect(found?.description.contains("invalid \(setting) in the signal store settings") == true)
    }

    @Test func theMessageNamesTheURLWithoutItsPassword() throws {
        for url in ["postgres://app:s3cret@db:notaport/app", "postgres://app:s3cret@db:5432/app?sslmode=on"] {
            do {
                _ = try PostgresSettings(url: url)
                Issue.record("\(url) was accepted")
            } catch {
                #expect(!error.description.contains("s3cret"), "\(error)")
                #expect(error.description.contains("postgres://app:***@db:"), "\(error)")
            }
        }
    }

    @Test func wrongEnvironmentVariablesAreNamed() throws {
        let port = invalid { () throws(SignalError) in
            _ = try PostgresSettings.fromEnvironment(["PGUSER": "app", "PGPORT": "five"])
        }
        #expect(port?.setting == "PGPORT" && port?.reason == "'five' is not a port number (1 to 65535)")
        let mode = invalid { () throws(SignalError) in
            _ = try PostgresSettings.fromEnvironment(["PGUSER": "app", "PGSSLMODE": "on"])
        }
        #expect(mode?.setting == "PGSSLMODE" && mode?.reason.hasPrefix("'on' is not one of disable") == true)
        let url = invalid { () throws(SignalError) in
            _ = try PostgresSettings.fromEnvironment(["HANDLERKIT_POSTGRES_URL": "postgres://app@db:port/app"])
        }
        #expect(url?.setting == "port")
    }

    @Test func rightURLsStillRead() throws {
        let settings = try PostgresSettings(
            url: "postgresql://app:p%40ss@[::1]:6543/orders?schema=jobs&sslmode=disable")
        #expect(settings.host == "[::1]" || settings.host == "::1", "\(settings.host)")
        #expect(settings.port == 6543 && settings.username == "app" && settings.password == "p@ss")
        #expect(settings.database == "orders" && settings.schema == "jobs" && settings.tlsMode == .disable)
        let defaults = try PostgresSettings(url: "postgres://app@/app")
        #expect(defaults.host == "127.0.0.1" && defaults.port == 5432)
    }
}
#endif
