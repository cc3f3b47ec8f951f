// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging
import NIOCore
import PostgresNIO
import SignalSQL

/// The signal store on PostgreSQL, for processes on several hosts: the same `SignalCenter`, API and
/// guarantees as `SQLiteSignalStore`. Switching is one line:
///
/// ```swift
/// let store = try PostgresSignalStore(url: "postgres://app@db.internal:5432/app")   // or .fromEnvironment()
/// let center = try await SignalCenter.start(component: "worker", store: store)
/// ```
///
/// - **Claims** take due deliveries with `SELECT … FOR UPDATE SKIP LOCKED`; completing, retrying or
///   parking a delivery checks the run id *and* attempt it was claimed with, so a late process can
///   never complete or overwrite an attempt that is no longer its own.
/// - **Liveness from the server**: each run holds a session-level advisory lock on a connection of
///   its own. When its process dies (kill -9 included) the server closes the connection and releases
///   the lock; a center of the component notices within `Options.livenessCheckInterval` (2 s by
///   default; a center that delivers by hand, at its first `deliverDue()` after that) and takes the run's deliveries and durable consumers over. A host that
///   vanishes without its connection closing (a network partition) keeps its lock, so each run also
///   renews a lease (`heartbeat_at`, on the server's clock) every `Options.heartbeatInterval`: a run
///   silent for longer than `Options.lease` (30 s by default) is taken over too, and its lock
///   connection is terminated. A run that comes back after that finds its claims gone (its
///   completions are refused) and carries on as an empty run.
/// - **Wake-ups**: a post sends `NOTIFY` in its own transaction; the store `LISTEN`s on one
///   connection of its own for all its centers and the tasks awaiting its promises, and each center
///   rescans every `Options.rescanInterval` as a fallback.
/// - **Schema**: created and migrated by the store in its own schema (`PostgresSettings.schema`),
///   versioned; a newer version is `SignalError.newerSchema`.
///
/// - **Outages and partitions**: a server that restarts or cannot be reached is tried again for
///   `Options.reconnectFor` (starting a center too), a connection whose server stopped answering is
///   noticed within about `Options.connectionTimeout`, and every call returns or throws
///   (`SignalError.storeUnavailable`, naming the cause) within `reconnectFor` plus
///   `connectionTimeout`. Ending a run tries for at most `Options.lease`.
///
/// The store connects when first used; `prepare()` connects and migrates at once, so a server that
/// cannot be reached is reported then (`SignalError.storeUnavailable`, naming host and port).
public final class PostgresSignalStore: SignalStore {
    /// How the store behaves.
    public struct Options: Sendable {
        /// This host's name, recorded with its runs (for logs and operators).
        public var hostID: String
        /// How long a run may stay silent (no heartbeat) before it is taken over although its lock
        /// is held: covers hosts cut off without their connection closing. A run whose renewal gets
        /// no answer for half the lease closes its lock connection and reconnects; one that renewed
        /// nothing for the whole lease logs that it may have been taken over.
        public var lease: Duration
        /// How often a run renews its lease.
        public var heartbeatInterval: Duration
        /// How often a center's delivery passes look for dead runs of its component to take over
        /// (the center looks; the store takes nothing over by itself).
        public var livenessCheckInterval: Duration
        /// The fallback: how often a waiting center looks for deliveries without a notification.
        public var rescanInterval: Duration
        /// How long the store keeps trying to reach the server once it is lost (the server restarts,
        /// the network is cut) or while it cannot be reached at all (also when a center starts),
        /// before throwing `SignalError.storeUnavailable` naming the cause. The budget is the
        /// outage's: once the server has been unreachable this long, later calls try once and fail
        /// until it answers again. Every store call returns or throws within `reconnectFor` plus
        /// `connectionTimeout`; ending a run (`SignalCenter.stop()`) tries for at most `lease`
        /// (what it cannot give back is taken over by another process after the lease).
        public var reconnectFor: Duration
        /// How long connecting may take (TCP and PostgreSQL's startup, each), and how long a
        /// connection may go without the server acknowledging what was sent to it (TCP keepalive
        /// probes after half of it, `TCP_USER_TIMEOUT` on Linux) before it counts as lost: a server
        /// cut off by the network is noticed within about this time, and the call tries again on a
        /// new connection.
        public var connectionTimeout: Duration
        /// How long completions stay in the history (`completions(of:)`).
        public var completionHistory: Duration
        /// Where the store logs takeovers, reconnections and migrations (and postgres-nio its
        /// connections' events), with the metadata key `handlerkit.store` (its location) and, where
        /// they apply, `handlerkit.run`, `handlerkit.component` and `handlerkit.error`. By default
        /// the task-local `Logger.current` of the code that makes the options.
        public var logger: Logger
        /// The app's own TLS set-up for the store's connections (for example with the
        /// `NIOSSLContext` its other PostgreSQL clients use); when set, the settings' `tlsMode` and
        /// certificate files are not used. The server's certificate is checked against
        /// `PostgresSettings.host` when the context asks for full verification.
        public var tls: PostgresConnection.Configuration.TLS?
        /// For this package's tests: called at `SignalFaultPoint.postBeforeCommit`, inside the post's
        /// transaction.
        package var faultHook: (@Sendable (SignalFaultPoint) -> Void)?
        /// How the error of a call that stopped trying names the setting that bounds the tries: an
        /// operators' tool names its own option instead of `Options.reconnectFor`.
        package var reconnectForName = "Options.reconnectFor"

        public init(
            hostID: String = ProcessInfo.processInfo.hostName, lease: Duration = .seconds(30),
            heartbeatInterval: Duration = .seconds(2), livenessCheckInterval: Duration = .seconds(2),
            rescanInterval: Duration = .seconds(5), reconnectFor: Duration = .seconds(60),
            connectionTimeout: Duration = .seconds(10), completionHistory: Duration = .seconds(86_400),
            logger: Logger = Logger.current
        ) {
            self.hostID = hostID
            self.lease = lease
            self.heartbeatInterval = heartbeatInterval
            self.livenessCheckInterval = livenessCheckInterval
            self.rescanInterval = rescanInterval
            self.reconnectFor = reconnectFor
            self.connectionTimeout = connectionTimeout
            self.completionHistory = completionHistory
            self.logger = logger
        }
    }

    public let settings: PostgresSettings
    public let options: Options
    public var location: String { settings.location }

    /// ``Options/livenessCheckInterval``: how often a center's delivery passes look for dead runs of
    /// its component.
    @_spi(SignalStoreDriver)
    public var livenessCheckInterval: Duration? { options.livenessCheckInterval }
    /// The schema's name, checked (it is written into SQL). Statements name no schema: every
    /// connection's `search_path` selects it.
    let schema: String
    /// The advisory locks' namespace: `hashtext(namespace)` is their first key.
    let namespace: String
    /// The LISTEN/NOTIFY channel.
    let channel: String
    let connections: PostgresConnections
    /// The one `LISTEN` connection of the wake listeners this store makes.
    private let wakeChannel: PostgresWakeChannel
    private let prepared = Locked(false)
    let keepers = Locked<[String: RunKeeper]>([:])
    /// Whether the store was opened for reading only (``init(inspecting:options:)``).
    let readsOnly: Bool

    /// A store at `settings`; it connects when first used (or at `prepare()`).
    ///
    /// - Throws: `SignalError.invalidStoreSettings` for a schema name the store cannot take.
    public convenience init(settings: PostgresSettings, options: Options = Options()) throws(SignalError) {
        try self.init(settings: settings, options: options, readsOnly: false)
    }

    /// The store at `settings` for reading only, as an operator's tool looks into it
    /// (`SignalStoreInspector`): the schema is neither created nor migrated, and the operations
    /// that write throw `SignalError.storeReadOnly`.
    ///
    /// - Throws: at first use, `SignalError.notASignalStore` when the schema holds no signal store,
    ///   `.newerSchema`, `.storeUnavailable` for an older schema (a process of this version migrates
    ///   it) or a server that cannot be reached.
    public convenience init(inspecting settings: PostgresSettings, options: Options = Options()) throws(SignalError) {
        try self.init(settings: settings, options: options, readsOnly: true)
    }

    private init(settings: PostgresSettings, options: Options, readsOnly: Bool) throws(SignalError) {
        self.settings = settings
        var options = options
        options.logger[metadataKey: SignalLogKey.store] = .string(settings.location)
        self.options = options
        self.readsOnly = readsOnly
        schema = try settings.validatedSchema()
        namespace = "handlerkit_signals.\(schema)"
        channel = "\(schema)_wake"
        connections = PostgresConnections(
            settings: settings, tls: try PostgresTLS(settings: settings, appTLS: options.tls), logger: options.logger,
            reconnectFor: options.reconnectFor, connectionTimeout: options.connectionTimeout,
            reconnectForName: options.reconnectForName)
        wakeChannel = PostgresWakeChannel(connections: connections, channel: channel)
    }

    /// A store at a `postgres://user:password@host:port/database?schema=name` URL.
    ///
    /// - Throws: `SignalError.invalidStoreSettings` naming the part of the URL that is wrong
    ///   (``PostgresSettings/init(url:)``); nothing is tried then.
    public convenience init(url: String, options: Options = Options()) throws(SignalError) {
        try self.init(settings: PostgresSettings(url: url), options: options)
    }

    /// A store at the place the environment names (`PostgresSettings.fromEnvironment`).
    public static func fromEnvironment(
        schema: String? = nil, options: Options = Options()
    ) throws(SignalError) -> PostgresSignalStore {
        try PostgresSignalStore(settings: PostgresSettings.fromEnvironment(schema: schema), options: options)
    }

    /// Connects and creates or migrates the schema now (otherwise done at first use).
    ///
    /// - Throws: `SignalError.storeUnavailable` naming host and port when the server cannot be reached,
    ///   `.newerSchema` when the store was written by a newer version (left unchanged).
    public func prepare() async throws(SignalError) {
        if prepared.withLock({ $0 }) { return }
        if readsOnly {
            try await checkSchema()
            prepared.withLock { $0 = true }
            return
        }
        try await connections.transaction("creating or migrating the schema") { connection in
            try await PostgresSchema.migrate(
                connection, schema: self.schema, namespace: self.namespace, location: self.location,
                logger: self.options.logger)
        }
        prepared.withLock { $0 = true }
    }

    /// Closes the store's idle connections (runs keep theirs until they end).
    public func close() async {
        await connections.closeIdle()
    }

    // MARK: Reads

    @_spi(SignalStoreDriver)
    public func read<Value: Sendable>(_ read: StoreRead<Value>) async throws(SignalError) -> Value {
        try await run(read.sql)
    }

    @_spi(SignalStoreDriver)
    public func makeWakeListener() throws(SignalError) -> any SignalWakeListener {
        let keepers = keepers
        return PostgresWakeListener(
            channel: wakeChannel, rescanInterval: options.rescanInterval, logger: connections.logger
        ) { run in
            run.isEmpty || WorkQueue.isQueue(run) || keepers.withLock { $0[run] != nil }
        }
    }

    // MARK: Reading results

    func count(_ rows: PostgresRowSequence) async throws -> Int {
        var value = 0
        for try await number in rows.decode(Int.self) { value = number }
        return value
    }

    func strings(_ rows: PostgresRowSequence) async throws -> [String] {
        var values: [String] = []
        for try await value in rows.decode(String.self) { values.append(value) }
        return values
    }
}
#endif
