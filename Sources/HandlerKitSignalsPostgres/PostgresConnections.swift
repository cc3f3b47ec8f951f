// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging
import PostgresNIO

/// The store's connections to the server: a few kept open and reused, a new one made when none is
/// free. Every connection has TCP keepalive and, on Linux, `TCP_USER_TIMEOUT` set from
/// `connectionTimeout`, so the kernel ends one whose server stopped answering (a network cut, a
/// stopped host) instead of waiting for minutes.
///
/// A call keeps trying for `reconnectFor` while the server cannot be reached or its connection is
/// lost (the server restarting, the network cut), then throws `SignalError.storeUnavailable` naming
/// the cause; a statement still unanswered then is ended by closing its connection. The budget
/// belongs to the outage, not to each call: once the server has been unreachable for
/// `reconnectFor`, later calls try once (at most `connectionTimeout`) and fail, or fail at once while
/// the last try failed less than a second ago, until the server answers again. So a call returns
/// or throws within `reconnectFor` plus `connectionTimeout`, unless its process did not run for
/// longer than that (it was frozen, or starved of processor time): a try that took the whole budget
/// and failed by itself leaves the call the budget again from that failure. Errors that retrying cannot mend (a
/// refused password, a missing database) are thrown at once.
package final class PostgresConnections: Sendable {
    let settings: PostgresSettings
    let tls: PostgresTLS
    let logger: Logger
    let reconnectFor: Duration
    let connectionTimeout: Duration
    /// The name of the setting `reconnectFor` comes from, for messages.
    let reconnectForName: String
    private let idle = Locked<[PostgresConnection]>([])
    private let nextID = Locked(0)
    /// Since when the server has been unreachable, when a try last failed and why.
    private let outage = Locked<(since: ContinuousClock.Instant, lastFailure: ContinuousClock.Instant, cause: String)?>(
        nil)
    private static let keptIdle = 8
    /// While the server has been unreachable for `reconnectFor`, how long a failed try is not repeated.
    private static let quietAfterFailure = Duration.seconds(1)

    /// The logger postgres-nio gets for each connection (`ConnectionLogHandler`).
    private let connectionLogger: Logger

    package init(
        settings: PostgresSettings, tls: PostgresTLS, logger: Logger, reconnectFor: Duration,
        connectionTimeout: Duration, reconnectForName: String = "Options.reconnectFor"
    ) {
        self.settings = settings
        self.tls = tls
        self.logger = logger
        connectionLogger = Logger(label: logger.label) { _ in ConnectionLogHandler(logger) }
        self.reconnectFor = reconnectFor
        self.connectionTimeout = connectionTimeout
        self.reconnectForName = reconnectForName
    }

    /// A new connection of its own (for a wake listener), not from the pool, tried once.
    func connect() async throws(SignalError) -> PostgresConnection {
        do {
            return try await open()
        } catch {
            throw unreachable(error)
        }
    }

    /// Opens a connection within `connectionTimeout` (TCP connection and PostgreSQL's startup each).
    private func open() async throws -> PostgresConnection {
        let timeout = TimeAmount.nanoseconds(Int64(connectionTimeout.seconds * 1e9))
        let bootstrap = Self.detectingDeadServers(
            ClientBootstrap(group: PostgresConnection.defaultEventLoopGroup).connectTimeout(timeout),
            within: connectionTimeout)
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: settings.host, port: settings.port).get()
        } catch {
            throw Unreachable(underlying: error)
        }
        var configuration = PostgresConnection.Configuration(
            establishedChannel: channel, tls: tls.tls, username: settings.username, password: settings.password,
            database: settings.database)
        configuration.options.connectTimeout = timeout
        configuration.options.tlsServerName = tls.serverName
        // The store's schema first: the prepared statements (PostgresStatements) name its tables
        // unqualified. And no plan that reads a table whole (`PostgresStatements.planSetting`).
        configuration.options.additionalStartupParameters = [
            ("search_path", settings.schema), PostgresStatements.planSetting,
        ]
        let id = nextID.withLock { value -> Int in
            value += 1
            return value
        }
        do {
            let connection = try await PostgresConnection.connect(
                on: channel.eventLoop, configuration: configuration, id: id, logger: connectionLogger)
            logger.debug("opened a connection", metadata: ["handlerkit.connection": .stringConvertible(id)])
            return connection
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// `bootstrap` with TCP keepalive, and on Linux keepalive probes after half `timeout` of silence,
    /// then every quarter: a server that stopped answering is noticed while the connection is idle
    /// (waiting for an answer or in the pool). `TCP_USER_TIMEOUT` ends the connection once data (or
    /// probes) stay unacknowledged for `timeout`. (ClientBootstrap sets TCP_NODELAY itself.)
    private static func detectingDeadServers(_ bootstrap: ClientBootstrap, within timeout: Duration) -> ClientBootstrap
    {
        let keepalive = bootstrap.channelOption(.socketOption(.so_keepalive), value: 1)
        #if os(Linux)
        let seconds = max(1, Int(timeout.seconds.rounded()))
        return
            keepalive
            .channelOption(.tcpOption(.init(rawValue: TCP_KEEPIDLE)), value: max(1, seconds / 2))
            .channelOption(.tcpOption(.init(rawValue: TCP_KEEPINTVL)), value: max(1, seconds / 4))
            .channelOption(.tcpOption(.init(rawValue: TCP_KEEPCNT)), value: 3)
            .channelOption(.tcpOption(.init(rawValue: Int32(TCP_USER_TIMEOUT))), value: Int(timeout.seconds * 1000))
        #else
        return keepalive
        #endif
    }

    /// Runs `body` on a pooled connection; after a connection loss it runs again on a fresh connection
    /// (for `reconnectFor`, or `budget` when given), other errors are thrown as `SignalError`s of
    /// `operation`. `body` gets whether this is a retry after a lost connection, so one whose first try
    /// may have been applied (a completion, a post) finds out rather than applying it twice; the
    /// others are guarded (run again harmlessly) or only read.
    package func run<T: Sendable>(
        _ operation: @autoclosure () -> String,
        within budget: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection, _ isRetry: Bool) async throws -> T
    ) async throws(SignalError) -> T {
        try await attempts(operation, budget: budget ?? reconnectFor, ownConnection: false, body).result
    }

    /// Runs `body` on a new connection of its own (a run's lock connection) and returns it with the
    /// result, retried like `run`.
    func runOnOwnConnection<T: Sendable>(
        _ operation: @autoclosure () -> String,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(SignalError) -> (result: T, connection: PostgresConnection) {
        try await attempts(operation, budget: reconnectFor, ownConnection: true) { connection, _ in
            try await body(connection)
        }
    }

    private func attempts<T: Sendable>(
        _ operation: () -> String, budget: Duration, ownConnection: Bool,
        _ body: @escaping @Sendable (PostgresConnection, _ isRetry: Bool) async throws -> T
    ) async throws(SignalError) -> (result: T, connection: PostgresConnection) {
        let start = ContinuousClock.now
        var giveUp = start + budget
        if let outage = outage.withLock({ $0 }), outage.since + reconnectFor < giveUp {
            // The server has been unreachable for a while: what is left of the outage's budget, one try at least.
            giveUp = max(start, outage.since + reconnectFor)
            if giveUp == start, outage.lastFailure.duration(to: start) < Self.quietAfterFailure {
                throw gaveUp(operation(), since: outage.since, cause: outage.cause)
            }
        }
        var wait = Duration.milliseconds(20)
        var isRetry = false
        while true {
            let connection: PostgresConnection
            let tryStart = ContinuousClock.now
            do {
                connection = ownConnection ? try await open() : try await acquire()
            } catch {
                guard Self.isConnectionLoss(error) else { throw unreachable(error) }
                let since = noteFailure(Self.describe(error))
                giveUp = Self.budgetAfterFailure(giveUp, tryStarted: tryStart, budget: budget)
                guard ContinuousClock.now < giveUp else {
                    throw gaveUp(operation(), since: since, cause: Self.describe(error))
                }
                logger.info(
                    "server unreachable, retrying",
                    metadata: [
                        "handlerkit.operation": .string(operation()), SignalLogKey.error: .string(Self.describe(error)),
                    ])
                try? await Task.sleep(for: min(wait, giveUp - .now))
                wait = min(wait * 2, .seconds(1))
                continue
            }
            // A statement still unanswered at the deadline ends the try, and its connection is closed.
            let attemptStart = ContinuousClock.now
            let deadline = max(giveUp, .now + connectionTimeout)
            do {
                let retrying = isRetry
                let result = try await ConnectionWatchdog.answer(
                    closing: connection, by: deadline, waited: attemptStart.duration(to: deadline)
                ) { try await body(connection, retrying) }
                noteSuccess()
                if !ownConnection { release(connection) }
                return (result, connection)
            } catch {
                let timedOut = error is NoAnswer
                let lost = timedOut || Self.isConnectionLoss(error)
                if lost || ownConnection || connection.isClosed || error is PSQLError {
                    // A statement failed: the connection is not reused, since a transaction may be open on it
                    // and a statement whose preparation failed stays failed on it (postgres-nio keeps the error).
                    try? await connection.close()
                } else {
                    // Our own check or decoding failed, not a statement: make sure no transaction stays open.
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    release(connection)
                }
                guard lost else { throw signalError(error, operation: operation()) }
                let cause =
                    timedOut
                    ? "no answer from the server for \(Self.format(attemptStart.duration(to: .now))); the connection was closed"
                    : Self.describe(error)
                let since = noteFailure(cause)
                // The other pooled connections went the same way, most likely.
                await closeIdle()
                if !timedOut { giveUp = Self.budgetAfterFailure(giveUp, tryStarted: attemptStart, budget: budget) }
                guard ContinuousClock.now < giveUp else { throw gaveUp(operation(), since: since, cause: cause) }
                logger.info(
                    "connection lost, retrying",
                    metadata: ["handlerkit.operation": .string(operation()), SignalLogKey.error: .string(cause)])
                isRetry = true
                try? await Task.sleep(for: min(wait, giveUp - .now))
                wait = min(wait * 2, .seconds(1))
            }
        }
    }

    /// When a call gives up after a try that started at `tryStarted` failed: at `giveUp`, unless the
    /// try took the whole `budget` and failed by itself (a try the server does not answer is ended
    /// well within the budget: `connectionTimeout`, the kernel's `TCP_USER_TIMEOUT`). Then this
    /// process did not run meanwhile (it was frozen, or starved of processor time) rather than the
    /// server being away that long, and the call has the whole budget again from now.
    static func budgetAfterFailure(
        _ giveUp: ContinuousClock.Instant, tryStarted: ContinuousClock.Instant, budget: Duration
    ) -> ContinuousClock.Instant {
        tryStarted.duration(to: .now) >= budget ? max(giveUp, .now + budget) : giveUp
    }

    /// Records a failed try; returns since when the server has been unreachable.
    private func noteFailure(_ cause: String) -> ContinuousClock.Instant {
        let now = ContinuousClock.now
        return outage.withLock { outage in
            let since = outage?.since ?? now
            outage = (since, now, cause)
            return since
        }
    }

    private func noteSuccess() {
        guard
            let ended = outage.withLock({ outage -> ContinuousClock.Instant? in
                defer { outage = nil }
                return outage?.since
            })
        else { return }
        logger.info(
            "the server answers again",
            metadata: ["handlerkit.outage": .string(Self.format(ended.duration(to: .now)))])
    }

    /// The error of a call that stopped trying: the server has been unreachable since `since`.
    private func gaveUp(_ operation: String, since: ContinuousClock.Instant, cause: String) -> SignalError {
        .storeUnavailable(
            path: settings.location,
            reason:
                "cannot reach the PostgreSQL server at \(settings.host):\(settings.port) during \(operation): \(cause) (unreachable for \(Self.format(since.duration(to: .now))); the store retries for \(Self.format(reconnectFor)), \(reconnectForName)). Check that the server runs and accepts connections at \(settings.host):\(settings.port) from this host"
        )
    }

    static func format(_ duration: Duration) -> String {
        let seconds = duration.seconds
        return seconds < 10 ? "\((seconds * 10).rounded() / 10) s" : "\(Int(seconds.rounded())) s"
    }

    /// Runs `body` in one transaction (`BEGIN` … `COMMIT`) on a pooled connection, retried like `run`.
    func transaction<T: Sendable>(
        _ operation: @autoclosure () -> String,
        within budget: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(SignalError) -> T {
        try await run(operation(), within: budget) { connection, _ in
            try await connection.query("BEGIN", logger: self.logger)
            let result = try await body(connection)
            try await connection.query("COMMIT", logger: self.logger)
            return result
        }
    }

    /// Closes the idle connections.
    package func closeIdle() async {
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

    private func acquire() async throws -> PostgresConnection {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        return try await open()
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
                "cannot connect to the PostgreSQL server at \(settings.host):\(settings.port): \(tlsFailure(error) ?? Self.describe(error))"
        )
    }

    /// What a failed TLS set-up of a connection means, or `nil` when `error` is no TLS failure.
    func tlsFailure(_ error: any Error) -> String? {
        guard let failure = Self.tlsError(in: error) else { return nil }
        switch failure {
        case let error as PSQLError where error.code == .sslUnsupported:
            return
                "TLS: the server does not accept TLS connections, and sslmode=\(settings.tlsMode.rawValue) requires TLS: turn ssl on in the server, or use sslmode=prefer"
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return
                "TLS: the server's certificate is not made out to \(settings.host) (verify-full checks the host name: connect by a name the certificate lists, or use sslmode=verify-ca)"
        case NIOSSLError.handshakeFailed(let reason) where "\(reason)".contains("CERTIFICATE_VERIFY_FAILED"):
            let roots = settings.tlsRootCertificate.map { "sslrootcert \($0)" } ?? "the store's root certificates"
            return
                "TLS: the server's certificate is not signed by the root certificates of \(roots) (certificate verify failed)"
        default:
            return "TLS: \(failure)"
        }
    }

    /// The TLS refusal in `error` or what caused it, if any: a certificate refused, a server without
    /// TLS, TLS settings that cannot work. Retrying cannot mend it. A TLS connection that a server
    /// going down ended (``isDroppedTLS(_:)``) is no refusal.
    private static func tlsError(in error: any Error) -> (any Error)? {
        var next: (any Error)? = error
        for _ in 0..<4 {
            switch next {
            case let error as PSQLError:
                if error.code == .sslUnsupported { return error }
                next = error.underlying
            case let error as Unreachable:
                next = error.underlying
            case let error as NIOSSLError:
                return isDroppedTLS(error) ? nil : error
            case let error as NIOSSLExtraError:
                return error
            case let error as BoringSSLError:
                return error
            default:
                return nil
            }
        }
        return nil
    }

    /// Whether a TLS error only says that the connection ended under it — the server closed it
    /// during the handshake or without ending TLS (a server restarting or killed), or its socket
    /// failed — rather than that TLS refused the server or the settings.
    static func isDroppedTLS(_ error: NIOSSLError) -> Bool {
        switch error {
        case .uncleanShutdown, .writeDuringTLSShutdown, .readInInvalidTLSState, .shutdownFailed:
            return true
        case .handshakeFailed(.syscallError), .handshakeFailed(.zeroReturn):
            return true
        case .handshakeFailed(.sslError(let stack)):
            // NIOSSL's own entries for a connection closed while the handshake ran.
            return !stack.isEmpty
                && stack.allSatisfy {
                    $0 == .eofDuringHandshake || $0 == .eofDuringAdditionalCertficiateChainValidation
                }
        default:
            return false
        }
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

    /// Whether `error` means the connection is gone or could not be made (the server is going down,
    /// starting up or cannot be reached, or dropped a TLS handshake or session as it went down), so
    /// nothing more can be learnt from it and a new connection may succeed. A TLS refusal (a
    /// certificate refused, a server without TLS) is not: it is thrown at once.
    static func isConnectionLoss(_ error: any Error) -> Bool {
        if let error = error as? SignalError, case .storeUnavailable = error { return true }
        if tlsError(in: error) != nil { return false }
        if error is Unreachable || error is NoAnswer { return true }
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

    /// A readable description of an error of postgres-nio (whose `description` is a placeholder that
    /// hides everything): the server's message, SQLSTATE, detail and hint, or the error's code, and
    /// what caused it. Never the statement's parameters or the password.
    static func describe(_ error: any Error) -> String {
        describe(error, depth: 0)
    }

    private static func describe(_ error: any Error, depth: Int) -> String {
        let cause = { (underlying: (any Error)?) -> String in
            guard let underlying, depth < 4 else { return "" }
            return ": " + describe(underlying, depth: depth + 1)
        }
        switch error {
        case let error as PSQLError:
            guard let info = error.serverInfo, let message = info[.message] else {
                return "\(Self.name(of: error.code))\(cause(error.underlying))"
            }
            var text = "\(message) (SQLSTATE \(info[.sqlState] ?? "?"))"
            if let detail = info[.detail] { text += "; detail: \(detail)" }
            if let hint = info[.hint] { text += "; hint: \(hint)" }
            return text
        case let error as PostgresDecodingError:
            return
                "cannot decode column '\(error.columnName)' (\(error.columnIndex)) of type \(error.postgresType) as \(error.targetType): \(error.code)"
        case let error as Unreachable:
            return describe(error.underlying, depth: depth + 1)
        case let error as NIOSSLError where isDroppedTLS(error):
            return "the server ended the TLS connection abruptly, as a server going down does (\(error))"
        default:
            return describeConnectionFailure(error) ?? "\(error)"
        }
    }

    private static func name(of code: PSQLError.Code) -> String {
        switch code {
        case .connectionError: "connection error"
        case .serverClosedConnection: "the server closed the connection"
        case .clientClosedConnection: "the connection was closed"
        case .uncleanShutdown: "the connection ended uncleanly"
        case .queryCancelled: "the statement was cancelled"
        default: "\(code)"
        }
    }
}

/// A TCP connection to the server that could not be made (refused, timed out, no route).
struct Unreachable: Error, CustomStringConvertible {
    var underlying: any Error
    var description: String { PostgresConnections.describe(underlying) }
}
#endif
