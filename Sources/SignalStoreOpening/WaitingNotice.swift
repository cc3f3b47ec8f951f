import Foundation
import Logging

/// The log handler of a PostgreSQL store opened by an operators' tool: it leaves the store's log
/// lines out, but the first time the store says it is trying to reach the server again, it tells the
/// operator once that the tool is waiting, for how long, and why.
struct WaitingNotice: LogHandler {
    /// `host:port` of the server.
    let server: String
    let connectTimeout: Duration
    /// The tool's option that sets `connectTimeout`, if any.
    let option: String?
    let say: @Sendable (String) -> Void
    /// Whether the operator was told, shared by the copies of the handler.
    private let told = Told()

    var logLevel = Logger.Level.info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    init(server: String, connectTimeout: Duration, option: String?, say: @escaping @Sendable (String) -> Void) {
        self.server = server
        self.connectTimeout = connectTimeout
        self.option = option
        self.say = say
    }

    func log(event: LogEvent) {
        // The store's messages are constant: these two say that a call tries to reach the server again.
        let message = event.message.description
        guard message == "server unreachable, retrying" || message == "connection lost, retrying",
            told.first()
        else { return }
        let cause = (event.metadata ?? [:])["handlerkit.error"].map { " (\($0))" } ?? ""
        let (seconds, attoseconds) = connectTimeout.components
        let tenths = (Double(seconds) * 10 + Double(attoseconds) / 1e17).rounded() / 10
        let duration = tenths == tenths.rounded() ? "\(Int(tenths))" : "\(tenths)"
        say(
            "the PostgreSQL server at \(server) does not answer\(cause); trying again for up to \(duration) s"
                + (option.map { " (\($0))" } ?? ""))
    }

    private final class Told: @unchecked Sendable {
        private let lock = NSLock()
        private var done = false

        /// `true` the first time only.
        func first() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            if done { return false }
            done = true
            return true
        }
    }
}
