// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Logging

/// What postgres-nio logs about a connection, into the store's logger: its metadata values that are
/// postgres-nio's placeholder description of an error (which hides what happened) are replaced by a
/// pointer to the store's own message about the same failure, which says what the server said or
/// what broke the connection.
struct ConnectionLogHandler: LogHandler {
    private var logger: Logger
    var metadata: Logger.Metadata = [:]

    /// The placeholder postgres-nio's errors give as their description.
    static let placeholder = "Generic description to prevent accidental leakage of sensitive data"

    init(_ logger: Logger) {
        self.logger = logger
    }

    var logLevel: Logger.Level {
        get { logger.logLevel }
        set { logger.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }.mapValues { value -> Logger.Metadata.Value in
            guard "\(value)".contains(Self.placeholder) else { return value }
            return "a postgres-nio error (the store's next message about this connection says what happened)"
        }
        logger.log(
            level: event.level, event.message, metadata: merged, source: event.source, file: event.file,
            function: event.function, line: event.line)
    }
}
#endif
