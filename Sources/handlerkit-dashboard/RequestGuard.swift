#if SignalsDashboard
import HTTPTypes
import Hummingbird

/// A request refused before anything was read or changed, with the status and the reason shown.
struct Refusal: Error, Sendable {
    var status: HTTPResponse.Status
    var title: String
    var message: String
}

/// What keeps the dashboard's actions to the person who started it:
///
/// - the action token given at start (`--token` or `HANDLERKIT_DASHBOARD_TOKEN`), typed into each
///   confirmation form; without one, actions are disabled;
/// - a form token made for this process, in every confirmation form, which a page of another site
///   cannot read, and the `Origin` and `Sec-Fetch-Site` headers browsers send, which must name this
///   dashboard: a cross-site POST is refused;
/// - bound to a loopback address, only requests naming a loopback host (`Host`), so that a site
///   whose name is made to resolve to 127.0.0.1 (DNS rebinding) cannot read the pages.
struct RequestGuard: Sendable {
    /// The action token; `nil`: actions are disabled.
    let actionToken: String?
    /// The form token of this process.
    let formToken: String
    /// Whether only loopback host names are accepted in `Host`.
    let loopbackOnly: Bool

    init(actionToken: String?, loopbackOnly: Bool, formToken: String = RequestGuard.randomToken()) {
        self.actionToken = actionToken
        self.loopbackOnly = loopbackOnly
        self.formToken = formToken
    }

    /// 32 random bytes from the system's generator, in hexadecimal.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

    /// The header in which a browser says which site a request comes from.
    private static let fetchSite = HTTPField.Name("Sec-Fetch-Site")

    /// Whether actions are enabled.
    var actionsEnabled: Bool { actionToken != nil }

    /// Refuses a request whose `Host` names no loopback host while bound to one.
    func checkHost(_ request: Request) throws(Refusal) {
        guard loopbackOnly else { return }
        let authority = request.head.authority ?? ""
        let host: Substring
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            host = authority[...end]
        } else {
            host = authority.split(separator: ":", maxSplits: 1).first ?? ""
        }
        guard host == "localhost" || host == "[::1]" || host.hasPrefix("127.") else {
            throw Refusal(
                status: .badRequest, title: "Refused: not a loopback host",
                message:
                    "This dashboard listens on a loopback address and answers requests for localhost or 127.0.0.1 "
                    + "only; this one was for '\(authority)'. Start it with --host to serve other names.")
        }
    }

    /// Refuses a POST sent from another site: its `Origin` must be this dashboard's, its
    /// `Sec-Fetch-Site` `same-origin`, and its form must carry this process's form token.
    func checkSameOrigin(_ request: Request, form: Parameters) throws(Refusal) {
        if let origin = request.headers[.origin] {
            let expected = "http://" + (request.head.authority ?? "")
            guard origin == expected else {
                throw crossSite("it comes from '\(origin)', not from this dashboard (\(expected))")
            }
        }
        if let name = Self.fetchSite, let site = request.headers[name], site != "same-origin" {
            throw crossSite("the browser says it comes from a page of another site (Sec-Fetch-Site: \(site))")
        }
        guard let token = form["form-token"], Self.same(token, formToken) else {
            throw crossSite(
                "its form token is missing or not this dashboard's (is the form from before a restart? open it again)")
        }
    }

    /// Refuses an action when actions are disabled, or when the form's token is not the action token.
    func checkActionToken(_ form: Parameters) throws(Refusal) {
        guard let actionToken else {
            throw Refusal(
                status: .forbidden, title: "Actions are disabled",
                message:
                    "Nothing changed: this dashboard was started without an action token. Start it with "
                    + "--token TOKEN (or HANDLERKIT_DASHBOARD_TOKEN=TOKEN) to enable requeue and discard.")
        }
        guard let given = form["token"], Self.same(given, actionToken) else {
            throw Refusal(
                status: .forbidden, title: "Wrong token",
                message:
                    "Nothing changed: the token typed is not the one the dashboard was started with. "
                    + "Go back and type it again.")
        }
    }

    private func crossSite(_ reason: String) -> Refusal {
        Refusal(
            status: .forbidden, title: "Refused: cross-site request",
            message: "Nothing changed: this request was refused because \(reason).")
    }

    /// Whether `a` and `b` are equal, compared in a time that depends on their lengths only.
    static func same(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
#endif
