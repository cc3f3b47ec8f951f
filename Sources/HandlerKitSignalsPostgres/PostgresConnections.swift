// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
import HandlerKit
import HandlerKitSignals
import Logging
import PostgresNIO

/// The store's connections to the server: a few kept open and reused, a new one made when none is
/// free. Connection losses (the server restarting) are retried for `reconnectFor` once the store
/// has been reached; a server that cannot be reached at all is `SignalError.storeUnavailable`
/// naming its host and port.
final class PostgresConnections: Sendable {
    let settings: PostgresSettings
    let logger: Logger
    let reconnectFor: Duration
    private let idle = Locked<[PostgresConnection]>([])
    private let everConnected = Locked(false)
    private let nextID = Locked(0)
    private static let keptIdle = 8

    init(settings: PostgresSettings, logger: Logger, reconnectFor: Duration) {
        self.settings = settings
        self.logger = logger
        self.reconnectFor = reconnectFor
    }

    /// A new connection of its own (for a run's lock or a wake listener), not from the pool.
    func connect() async throws(SignalError) -> PostgresConnection {
        var configuration = PostgresConnection.Configuration(
            host: settings.host, port: settings.port, username: settings.username, password: settings.password,
            database: settings.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        // The store's schema first: the prepared statements (PostgresStatements) name its tables unqualified.
        configuration.options.additionalStartupParameters = [("search_path", settings.schema)]
        let id = nextID.withLock { value -> Int in
            value += 1
            return value
        }
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
            everConnected.withLock { $0 = true }
            logger.debug("signal store \(settings.location): opened connection \(id)")
            return connection
        } catch {
            throw unreachable(error)
        }
    }

    /// Runs `body` on a pooled connection; after a connection loss it runs again on a fresh connection
    /// (for `reconnectFor`), other errors are thrown as `SignalError`s of `operation`. `body` gets
    /// whether this is a retry after a lost connection, so one whose first try may have been applied
    /// (a completion, a post) finds out rather than applying it twice; the others are guarded (run
    /// again harmlessly) or only read.
    func run<T: Sendable>(
        _ operation: @autoclosure () -> String,
        _ body: (PostgresConnection, _ isRetry: Bool) async throws -> T
    ) async throws(SignalError) -> T {
        let giveUp = ContinuousClock.now + reconnectFor
        var wait = Duration.milliseconds(20)
        var isRetry = false
        while true {
            let connection: PostgresConnection
            do {
                connection = try await acquire()
            } catch {
                guard everConnected.withLock({ $0 }), ContinuousClock.now < giveUp else { throw error }
                logger.notice(
                    "signal store \(settings.location): server unreachable during \(operation()), retrying: \(error)")
                try? await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(1))
                continue
            }
            do {
                let result = try await body(connection, isRetry)
                release(connection)
                return result
            } catch {
                let lost = Self.isConnectionLoss(error)
                if lost || connection.isClosed || error is PSQLError {
                    // A statement failed: the connection is not reused, since a transaction may be open on it
                    // and a statement whose preparation failed stays failed on it (postgres-nio keeps the error).
                    try? await connection.close()
                } else {
                    // Our own check or decoding failed, not a statement: make sure no transaction stays open.
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    release(connection)
                }
                if lost, ContinuousClock.now < giveUp {
                    logger.notice("signal store \(settings.location): connection lost during \(operation()), retrying")
                    isRetry = true
                    try? await Task.sleep(for: wait)
                    wait = min(wait * 2, .seconds(1))
                    continue
                }
                if lost {
                    throw SignalError.storeUnavailable(
                        path: settings.location,
                        reason:
                            "the connection to \(settings.host):\(settings.port) was lost during \(operation()): \(Self.describe(error))"
                    )
                }
                throw signalError(error, operation: operation())
            }
        }
    }

    /// Runs `body` in one transaction (`BEGIN` … `COMMIT`) on a pooled connection.
    func transaction<T: Sendable>(
        _ operation: @autoclosure () -> String,
        _ body: (PostgresConnection) async throws -> T
    ) async throws(SignalError) -> T {
        try await run(operation()) { connection, _ in
            try await connection.query("BEGIN", logger: logger)
            let result = try await body(connection)
            try await connection.query("COMMIT", logger: logger)
            return result
        }
    }

    /// Closes the idle connections.
    func close() async {
        let connections = idle.withLock { list -> [PostgresConnection] in
            defer { list.removeAll() }
            return list
        }
        for connection in connections { try? await connection.close() }
    }

    deinit {
        // A connection must be closed before it is released: the task keeps them until they are.
        let open = idle.withLock { list -> [PostgresConnection] in
            defer { list.removeAll() }
            return list
        }
        if !open.isEmpty { Task { for connection in open { try? await connection.close() } } }
    }

    private func acquire() async throws(SignalError) -> PostgresConnection {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        return try await connect()
    }

    private func release(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        let kept = idle.withLock { list -> Bool in
            guard list.count < Self.keptIdle else { return false }
            list.append(connection)
            return true
        }
        if !kept { Task { try? await connection.close() } }
    }

    // MARK: Errors

    /// The error for a server that could not be reached, naming its host and port.
    func unreachable(_ error: any Error) -> SignalError {
        .storeUnavailable(
            path: settings.location,
            reason:
                "cannot connect to the PostgreSQL server at \(settings.host):\(settings.port): \(Self.describe(error))")
    }

    /// The `SignalError` for an error of postgres-nio or of the server during `operation`.
    func signalError(_ error: any Error, operation: String) -> SignalError {
        if let error = error as? SignalError { return error }
        if Self.isConnectionLoss(error) { return unreachable(error) }
        let detail = Self.describe(error)
        switch (error as? PSQLError)?.serverInfo?[.sqlState] {
        case "53100"?: return .storeFull(path: settings.location, operation: operation)
        case "25006"?: return .storeReadOnly(path: settings.location, operation: operation)
        case "40001"?, "40P01"?, "55P03"?:
            return .storeBusy(path: settings.location, operation: operation, waitedSeconds: 0)
        default: return .database(path: settings.location, operation: operation, detail: detail)
        }
    }

    /// Whether `error` means the connection is gone (or the server is going down or starting up),
    /// so nothing more can be learnt from it and a new connection may succeed.
    static func isConnectionLoss(_ error: any Error) -> Bool {
        if let error = error as? SignalError, case .storeUnavailable = error { return true }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return true
        case .server:
            // Class 08: connection exceptions; 57P01–57P03: the server is shutting down or starting.
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
        default:
            return false
        }
    }

    /// A readable description of an error of postgres-nio (whose `description` hides everything).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return "\(message) (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
#endif
