// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// A `postgres://` URL's text split into its parts by hand: to say which part is wrong when it
/// cannot be read, and to leave its password out of messages whether or not it can be read.
struct PostgresURLText {
    /// The text as given.
    let text: String
    /// What comes before `://`; `nil` when there is no `://`.
    let scheme: Substring?
    /// `user[:password]`: what comes before the last `@` of the part before `?` and `#`, if any.
    let userInfo: Substring?
    /// `host[:port]`: after the user, up to the first `/`.
    let hostAndPort: Substring

    init(_ text: String) {
        self.text = text
        guard let separator = text.range(of: "://") else {
            scheme = nil
            userInfo = nil
            hostAndPort = ""
            return
        }
        scheme = text[..<separator.lowerBound]
        let rest = text[separator.upperBound...].prefix { $0 != "?" && $0 != "#" }
        let at = rest.lastIndex(of: "@")
        userInfo = at.map { rest[..<$0] }
        let afterUser = at.map { rest[rest.index(after: $0)...] } ?? rest
        hostAndPort = afterUser.prefix { $0 != "/" }
    }

    /// The host and the port's text (`nil` when the URL gives no port).
    var hostAndPortText: (host: Substring, port: Substring?) {
        if hostAndPort.hasPrefix("[") {
            // An IPv6 address: [::1]:5432
            guard let close = hostAndPort.firstIndex(of: "]") else { return (hostAndPort, nil) }
            let after = hostAndPort[hostAndPort.index(after: close)...]
            return (hostAndPort[...close], after.isEmpty ? nil : after.first == ":" ? after.dropFirst() : after)
        }
        guard let colon = hostAndPort.lastIndex(of: ":") else { return (hostAndPort, nil) }
        return (hostAndPort[..<colon], hostAndPort[hostAndPort.index(after: colon)...])
    }

    /// The text with its password replaced by `***`.
    var redacted: String {
        guard let userInfo, let colon = userInfo.firstIndex(of: ":") else { return text }
        return String(text[...colon]) + "***" + String(text[userInfo.endIndex...])
    }

    /// A port number from its text: digits only, 1 to 65535.
    static func port(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 5, text.utf8.allSatisfy({ (48...57).contains($0) }),
            let port = Int(text), (1...65535).contains(port)
        else { return nil }
        return port
    }

    /// Why `text` is not a port number.
    static func notAPort(_ text: some StringProtocol) -> String {
        text.isEmpty ? "the port is empty" : "'\(text.prefix(40))' is not a port number (1 to 65535)"
    }

    /// The part of the URL that is wrong and why, from its text alone; `nil` when the parts it checks
    /// (scheme, host, port) look right.
    func problem() -> (setting: String, reason: String)? {
        let expected = "expected postgres://user:password@host:port/database"
        guard let scheme else { return ("URL", "it is not a URL (\(expected))") }
        guard scheme == "postgres" || scheme == "postgresql" else {
            return ("scheme", "'\(scheme.prefix(40))' is not postgres or postgresql (\(expected))")
        }
        let (host, port) = hostAndPortText
        if let port, Self.port(port) == nil {
            return ("port", port.isEmpty ? "the URL has a ':' after the host but no port number" : Self.notAPort(port))
        }
        if host.contains(where: { $0.isWhitespace || "<>\\^`{|}\"".contains($0) }) {
            return ("host", "'\(host.prefix(80))' is not a host name or address")
        }
        return nil
    }
}
#endif
