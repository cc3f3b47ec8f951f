#if SignalsDashboard
/// The dashboard's command line, parsed by hand (a few options need no parser package):
/// `handlerkit-dashboard STORE [--host ADDRESS] [--port PORT] [--token TOKEN]`.
struct DashboardOptions: Sendable {
    /// The store: an SQLite database file, or a postgres:// URL.
    var store: String
    /// The address to listen on: a loopback address unless told otherwise.
    var host = "127.0.0.1"
    /// The port (0: any free one, printed at start).
    var port = 8_080
    /// The action token: with one, requeue and discard are enabled and ask for it.
    var token: String?

    /// The environment variable that may give the token instead of `--token` (which a process list
    /// shows).
    static let tokenVariable = "HANDLERKIT_DASHBOARD_TOKEN"

    static let usage = """
        usage: handlerkit-dashboard STORE [--host ADDRESS] [--port PORT] [--token TOKEN]

        Serves a web dashboard of a HandlerKit signal store: its runs, deliveries by state, dead letters,
        consumers and throughput; requeue and discard with confirmation.

          STORE            an SQLite store's database file, or a postgres:// URL (with ?schema=NAME)
          --host ADDRESS   the address to listen on (default 127.0.0.1: this machine only)
          --port PORT      the port (default 8080; 0 for any free port)
          --token TOKEN    enables the actions, which ask for this token (or set \(tokenVariable));
                           without one, the dashboard only reads
        """

    /// What was wrong with the command line.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The options of `arguments` (without the program's name), with the token from `environment`
    /// when `--token` is not given. `nil` for `--help`.
    init?(arguments: [String], environment: [String: String]) throws(Problem) {
        var store: String?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help": return nil
            case "--host", "--port", "--token":
                guard let value = remaining.popFirst() else { throw Problem(description: "\(argument) needs a value") }
                switch argument {
                case "--host":
                    guard !value.isEmpty else { throw Problem(description: "--host needs an address") }
                    host = value
                case "--port":
                    guard let port = Int(value), (0...65_535).contains(port) else {
                        throw Problem(description: "--port '\(value)' is not a port number (0 to 65535)")
                    }
                    self.port = port
                default:
                    token = value
                }
            default:
                guard !argument.hasPrefix("-") else { throw Problem(description: "unknown option '\(argument)'") }
                guard store == nil else { throw Problem(description: "one store only (got '\(argument)' too)") }
                store = argument
            }
        }
        guard let store else { throw Problem(description: "say which store: a database file or a postgres:// URL") }
        self.store = store
        if token == nil { token = environment[Self.tokenVariable] }
        if let token, token.count < 8 || token.contains(where: { $0.isWhitespace }) {
            throw Problem(description: "the action token must be at least 8 characters, without spaces")
        }
    }

    /// Whether `host` is a loopback address (or name), so that only requests naming one are answered.
    var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
#endif
