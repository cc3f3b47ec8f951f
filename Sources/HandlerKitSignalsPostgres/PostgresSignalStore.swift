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
///   the lock; another process of the component notices within `Options.livenessCheckInterval`
///   (2 s by default) and takes the run's deliveries and durable consumers over. A host that
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
        /// How often a live run looks for dead runs of its component to take over.
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
    private let keepers = Locked<[String: RunKeeper]>([:])
    /// Deliveries claimed through this store object and not yet completed or released: a claim by
    /// one of its runs that is not among them was lost with a connection, and is claimed again.
    private let inFlight = Locked<Set<Int64>>([])
    /// Whether a claim, completion or release failed since the last claim that looked for lost
    /// claims: a delivery may be left claimed by one of this store's runs with no delivery in
    /// progress holding it (a claim's answer lost after the server applied it, a completion that
    /// failed), so the next claim looks for such claims too.
    private let claimMayBeLost = Locked(false)
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

    // MARK: Runs

    public func beginRun(
        _ runID: String, component: String, retry: RetryPolicy, applying plan: StorePlan
    ) async throws(SignalError) {
        if readsOnly { throw .storeReadOnly(path: location, operation: "starting run \(runID)") }
        try await prepare()
        let keeper = try await RunKeeper.start(store: self, runID: runID, component: component, retry: retry)
        keepers.withLock { $0[runID] = keeper }
        do {
            try await connections.transaction("starting run \(runID) of component '\(component)'") { connection in
                try await self.forgetOldPosts(connection)
                _ = try await self.run(plan, connection)
            }
        } catch {
            keepers.withLock { $0[runID] = nil }
            await keeper.stop(closing: true)
            throw error
        }
    }

    public func endRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        let keeper = keepers.withLock { $0.removeValue(forKey: runID) }
        await keeper?.stop(closing: false)
        do {
            // Bounded by the lease: a run that cannot be ended sooner is taken over after it anyway.
            _ = try await connections.transaction(
                "ending run \(runID) of component '\(component)'", within: min(options.reconnectFor, options.lease)
            ) { connection in
                try await self.run(plan, connection)
            }
        } catch {
            await keeper?.stop(closing: true)
            throw error
        }
        await keeper?.stop(closing: true)
    }

    /// Stops the run's keeper and closes its connection, which releases the run's advisory lock:
    /// other processes (on any host) may take the run over. The store's idle connections are closed
    /// too.
    public func suspendRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int] {
        let counts = try await apply(plan)
        let keeper = keepers.withLock { $0.removeValue(forKey: runID) }
        await keeper?.stop(closing: true)
        await connections.closeIdle()
        return counts
    }

    /// Takes the run's advisory lock again on a connection of its own, serialized with takers of
    /// the run (their per-run takeover lock), and renews its lease: when its record is gone, the
    /// run was taken over and nothing is kept.
    public func resumeRun(
        _ runID: String, component: String, retry: RetryPolicy, applying plan: StorePlan
    ) async throws(SignalError) -> Bool {
        try await prepare()
        guard let keeper = try await RunKeeper.resume(store: self, runID: runID, component: component, retry: retry)
        else { return false }
        keepers.withLock { $0[runID] = keeper }
        do {
            _ = try await apply(plan)
        } catch {
            // Still suspended: the lock is released again, for a taker or the next resume.
            keepers.withLock { $0[runID] = nil }
            await keeper.stop(closing: true)
            throw error
        }
        return true
    }

    public func runs(of component: String) async throws(SignalError) -> RunsOfComponent {
        try await run(StoreReads.runs(of: component))
    }

    /// A run is gone when it has no record, its advisory lock is free, or its lease expired (then
    /// its lock connection is terminated).
    public func takeOver(
        _ candidate: String, of component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int]? {
        try await prepare()
        let lease = options.lease.seconds
        // A run whose lease expired may still hold its lock through a connection the server has not
        // noticed is gone: end that connection (best effort; needs the same role or pg_signal_backend).
        let expired = try await connections.run("checking the lease of run \(candidate)") { connection, _ in
            try await self.strings(
                connection.query(
                    """
                    SELECT host FROM runs WHERE run_id = \(candidate)
                    AND extract(epoch FROM clock_timestamp() - heartbeat_at)::float8 > \(lease)
                    """, logger: self.options.logger)
            ).first
        }
        if let host = expired {
            options.logger.info(
                "a run renewed no lease for the lease duration: taking it over and ending its connection",
                metadata: [
                    SignalLogKey.run: .string(candidate), SignalLogKey.component: .string(component),
                    "handlerkit.host": .string(host), "handlerkit.lease": .stringConvertible(Int(lease)),
                ])
            _ = try? await connections.run("ending the connection of run \(candidate)") { connection, _ in
                try await connection.query(
                    """
                    SELECT pg_terminate_backend(backend_pid) FROM runs WHERE run_id = \(candidate)
                    """, logger: self.options.logger)
            }
        }
        return try await connections.transaction("taking over dead run \(candidate) of component '\(component)'") {
            connection -> [Int]? in
            // One taker at a time per candidate.
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtext(\(self.namespace + ":takeover")), hashtext(\(candidate)))",
                logger: self.options.logger)
            let rows = try await connection.query(
                """
                SELECT pg_try_advisory_xact_lock(hashtext(\(self.namespace)), lock_key)
                    OR extract(epoch FROM clock_timestamp() - heartbeat_at)::float8 > \(lease), host
                FROM runs WHERE run_id = \(candidate)
                """, logger: self.options.logger)
            var found: (dead: Bool, host: String)?
            for try await (dead, host) in rows.decode((Bool, String).self) { found = (dead, host) }
            if let found, !found.dead { return nil }
            // A taker that was itself taken over takes nothing over.
            if let taker = plan.taker, try await !self.run(StoreReads.isRecorded(taker), on: connection) { return nil }
            let counts = try await self.run(plan, connection)
            if let report = plan.takeoverReport(counts: counts) {
                let taker = plan.steps.lazy.compactMap { step -> String? in
                    if case .moveConsumers(_, let taker) = step { taker } else { nil }
                }.first
                var metadata: Logger.Metadata = [
                    SignalLogKey.run: .string(taker ?? "?"), SignalLogKey.component: .string(component),
                    "handlerkit.interrupted_deliveries": .stringConvertible(report.interruptedDeliveries),
                    "handlerkit.adopted_consumers": .stringConvertible(report.adoptedConsumers),
                    "handlerkit.removed_consumers": .stringConvertible(report.removedConsumers),
                ]
                if report.deadRuns.isEmpty {
                    // The run had ended cleanly: its record went with it, and so did its host.
                    metadata["handlerkit.ended_run"] = .string(candidate)
                    self.options.logger.debug(
                        "adopted the consumers of a run that ended cleanly", metadata: metadata)
                } else {
                    metadata["handlerkit.dead_run"] = .string(candidate)
                    metadata["handlerkit.host"] = .string(found?.host ?? "?")
                    self.options.logger.info("took over a dead run", metadata: metadata)
                }
            }
            return counts
        }
    }

    /// A plan of one statement that wakes no one is atomic without `BEGIN` and `COMMIT`:
    /// one round trip (a release of a failed attempt among them, on the hot path).
    public func apply(_ plan: StorePlan) async throws(SignalError) -> [Int] {
        if readsOnly { throw .storeReadOnly(path: location, operation: plan.purpose) }
        try await prepare()
        // The deliveries a plan releases are no longer in progress here; when it fails, one may stay
        // claimed, so the next claim looks for lost claims.
        let releasing = plan.steps.compactMap { step -> Int64? in
            if case .releaseClaim(let release) = step { release.rowID } else { nil }
        }
        defer { if !releasing.isEmpty { inFlight.withLock { $0.subtract(releasing) } } }
        do {
            if plan.steps.count == 1 && !plan.wakesAnyone
                && StepStatements.statements(for: plan.steps[0], history: options.completionHistory.seconds).count == 1
            {
                return try await connections.run(plan.purpose) { connection, _ in try await self.run(plan, connection) }
            }
            return try await connections.transaction(plan.purpose) { connection in
                try await self.run(plan, connection)
            }
        } catch {
            if !releasing.isEmpty { claimMayBeLost.withLock { $0 = true } }
            throw error
        }
    }

    /// Makes the steps of `plan` in the caller's transaction (their statements are the SQL stores'
    /// own, `StepStatements`), then sends the wake-up it names (at the commit); returns the rows each
    /// step changed.
    private func run(_ plan: StorePlan, _ connection: PostgresConnection) async throws -> [Int] {
        var counts: [Int] = []
        for step in plan.steps {
            var count = 0
            for statement in StepStatements.statements(for: step, history: options.completionHistory.seconds) {
                count += try await execute(statement, connection)
            }
            counts.append(count)
        }
        switch plan.wakeUp(counts: counts) {
        case .run(let run)?: try await notify(connection, run: run)
        case .everyCenter?: try await notify(connection)
        case nil: break
        }
        return counts
    }

    /// Runs `statement`; returns what counts of it (`SQLStatement.Answer`). A release, on the path
    /// of every failed attempt, runs prepared (`PostgresStatements.Release`, the same statement).
    private func execute(_ statement: SQLStatement, _ connection: PostgresConnection) async throws -> Int {
        if statement.sql == StepStatements.releaseClaimSQL {
            var released = 0
            for try await value in try await connection.execute(
                PostgresStatements.Release(arguments: statement.arguments), logger: options.logger)
            {
                released = value
            }
            return released
        }
        let bindings = statement.arguments.bindings
        switch statement.answer {
        case .changes:
            return try await count(
                connection.query(
                    PostgresQuery(unsafeSQL: PostgresStatements.counting(statement.sql), binds: bindings),
                    logger: options.logger))
        case .ids:
            // The deliveries a step released (`RETURNING id`) are no longer in progress here either.
            var ids: [Int64] = []
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: statement.sql, binds: bindings), logger: options.logger)
            for try await id in rows.decode(Int64.self) { ids.append(id) }
            inFlight.withLock { $0.subtract(ids) }
            return ids.count
        case .nothing:
            try await connection.query(PostgresQuery(unsafeSQL: statement.sql, binds: bindings), logger: options.logger)
            return 0
        }
    }

    /// How long a post's id and result are kept (for a try after a lost connection, which comes within
    /// `reconnectFor`): twice that, at least ten minutes.
    var postMemory: Double { max(2 * options.reconnectFor.seconds, 600) }

    /// Removes the ids of posts older than `postMemory` (at each run's start and liveness check).
    func forgetOldPosts(_ connection: PostgresConnection) async throws {
        try await connection.query(
            "DELETE FROM posts WHERE posted_at < \(Date().timeIntervalSince1970 - postMemory)",
            logger: options.logger)
    }

    /// Wakes the centers of `run` (of every run when empty) when the transaction commits.
    func notify(_ connection: PostgresConnection, run: String = "") async throws {
        try await connection.query("SELECT pg_notify(\(channel), \(run))", logger: options.logger)
    }

    // MARK: Consumers

    public func consumers(of component: String?) async throws(SignalError) -> [ConsumerRecord] {
        try await run(StoreReads.consumers(of: component))
    }

    // MARK: Posting

    public func post(_ signalID: String, payload: [UInt8], keepUntil: Date?) async throws(SignalError) -> PostResult {
        if readsOnly { throw .storeReadOnly(path: location, operation: "posting signal '\(signalID)'") }
        try await prepare()
        let now = Date().timeIntervalSince1970
        let posting = Posting(signalID: signalID, payload: payload, keepUntil: keepUntil)
        let statement = postStatement(posting, now: now)
        // The post's id, made with the statement, is stored with its result: a try after a lost
        // connection finds out whether the lost one was applied (then returns its result) instead of
        // posting again.
        let postID = statement.postID
        let hook = options.faultHook
        let (revision, deliveries) = try await connections.run("posting signal '\(signalID)'") { connection, isRetry in
            if isRetry {
                try await connection.query("BEGIN", logger: self.options.logger)
                // Takes the post's id; waits while the lost try's transaction is still open on the server.
                let taken = try await self.count(
                    connection.query(
                        """
                        WITH t AS (INSERT INTO posts (post_id, signal_id, revision, deliveries, posted_at)
                                   VALUES (\(postID), \(signalID), 0, 0, \(now)) ON CONFLICT (post_id) DO NOTHING RETURNING 1)
                        SELECT count(*) FROM t
                        """, logger: self.options.logger))
                if taken == 0 {
                    var applied = (0, 0)
                    for try await row in try await connection.query(
                        """
                        SELECT revision, deliveries FROM posts WHERE post_id = \(postID)
                        """, logger: self.options.logger
                    ).decode((Int, Int).self) { applied = row }
                    try await connection.query("COMMIT", logger: self.options.logger)
                    self.options.logger.info(
                        "a post whose connection was lost had been applied: not posted again",
                        metadata: [
                            SignalLogKey.signal: .string(signalID),
                            SignalLogKey.revision: .stringConvertible(applied.0),
                        ])
                    return applied
                }
            } else if hook != nil {
                try await connection.query("BEGIN", logger: self.options.logger)
            }
            var result = (0, 0)
            for try await (revision, deliveries, _) in try await connection.execute(
                statement, logger: self.options.logger)
            {
                result = (revision, deliveries)
            }
            hook?(.postBeforeCommit)
            if isRetry || hook != nil { try await connection.query("COMMIT", logger: self.options.logger) }
            return result
        }
        return posting.result(revision: revision, deliveries: deliveries)
    }

    /// The statement that makes `posting` (``post(_:payload:keepUntil:)``), with a new post id.
    private func postStatement(_ posting: Posting, now: Double) -> PostgresStatements.Post {
        PostgresStatements.Post(
            signalID: posting.signalID, keepUntil: posting.keepUntil,
            storedPayload: ByteBuffer(bytes: posting.keptPayload), now: now,
            payload: ByteBuffer(bytes: posting.payload),
            channel: channel, postID: UUID().uuidString)
    }

    // MARK: Delivering

    public func claim(for runID: String, limit: Int) async throws(SignalError) -> [ClaimedDelivery] {
        try await claim(for: runID, limit: limit, startingFirst: false).deliveries
    }

    /// One statement: the claim marks the delivery that runs first started.
    public func claimStartingFirst(for runID: String, limit: Int) async throws(SignalError) -> ClaimedBatch {
        try await claim(for: runID, limit: limit, startingFirst: true)
    }

    private func claim(for runID: String, limit: Int, startingFirst: Bool) async throws(SignalError) -> ClaimedBatch {
        try await prepare()
        let now = Date().timeIntervalSince1970
        let running = inFlight.withLock { Array($0) }
        // Taken (and cleared) before the claim, so a failure of another operation meanwhile sets it again.
        let recovering = claimMayBeLost.withLock { mayBeLost in
            defer { mayBeLost = false }
            return mayBeLost
        }
        let claimed: ClaimedBatch
        do {
            claimed = try await connections.run("claiming deliveries for run \(runID)") { connection, isRetry in
                if recovering || isRetry {
                    try await self.claim(
                        PostgresStatements.ClaimWithLostClaims(
                            runID: runID, now: now, running: running, limit: limit, startsFirst: startingFirst),
                        connection)
                } else {
                    try await self.claim(
                        PostgresStatements.Claim(
                            runID: runID, now: now, running: running, limit: limit, startsFirst: startingFirst),
                        connection)
                }
            }
        } catch {
            claimMayBeLost.withLock { $0 = true }
            throw error
        }
        inFlight.withLock { $0.formUnion(claimed.deliveries.map { $0.rowID }) }
        // A first delivery that does not start is no longer in progress here.
        if let first = claimed.deliveries.first, let start = claimed.firstStart, start != .started {
            _ = inFlight.withLock { $0.remove(first.rowID) }
        }
        return claimed
    }

    /// Runs a claim statement for `runID`; deliveries the core finds unreadable are parked as dead.
    /// When the statement marked the first delivery started, `firstStart` says so; when the delivery
    /// it marked was unreadable, `nil` (the center marks the first with ``start(_:)``).
    private func claim<Statement: ClaimStatement>(
        _ statement: Statement, _ connection: PostgresConnection
    ) async throws -> ClaimedBatch {
        let runID = statement.runID
        let rows = try await connection.execute(statement, logger: options.logger)
        var claimed: [ClaimedDelivery] = []
        var marked: Set<Int64> = []
        var recorded = true
        var unreadable: [(id: Int64, reason: String)] = []
        for try await (
            id, key, consumer, signal, revision, attempt, handler, payload, mode, crashed, started, runRecorded
        )
            in rows
        {
            if started { marked.insert(id) }
            recorded = runRecorded
            let reading = ClaimedDelivery.reading(claimedBy: runID) {
                ClaimedColumns(
                    rowID: id, key: key, consumer: consumer, signalID: signal, revision: revision, attempt: attempt,
                    crashed: crashed, handler: handler, payload: payload, mode: mode)
            }
            switch reading {
            case .run(let delivery): claimed.append(delivery)
            case .park(let reason): unreadable.append((id, reason))
            }
        }
        for (id, reason) in unreadable {
            try await connection.query(
                """
                UPDATE deliveries SET state = \(unescaped: dead), claimed_by = NULL, last_error = \(reason)
                WHERE id = \(id)
                """, logger: options.logger)
        }
        let deliveries = ClaimedDelivery.runningOrder(claimed)
        guard statement.startsFirst, let first = deliveries.first else {
            return ClaimedBatch(deliveries: deliveries, firstStart: nil)
        }
        let start: StartOutcome? =
            marked.contains(first.rowID) ? .started : recorded ? nil : StartOutcome(marked: false, runRecorded: false)
        return ClaimedBatch(deliveries: deliveries, firstStart: start)
    }

    public func start(_ delivery: ClaimedDelivery) async throws(SignalError) -> StartOutcome {
        let statement = PostgresStatements.Start(
            rowID: delivery.rowID, runID: delivery.runID, attempt: delivery.attempt)
        let outcome = try await connections.run("starting delivery \(delivery.key)") { connection, _ in
            var outcome = StartOutcome.claimLost
            for try await (recorded, started) in try await connection.execute(statement, logger: self.options.logger) {
                outcome = StartOutcome(marked: started == 1, runRecorded: recorded)
            }
            return outcome
        }
        // A delivery that does not start is no longer in progress here.
        if outcome != .started { _ = inFlight.withLock { $0.remove(delivery.rowID) } }
        return outcome
    }

    public func complete(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, thenStarting next: ClaimedDelivery?
    ) async throws(SignalError) -> CompletionOutcome {
        var outcome = CompletionOutcome(completed: false, next: nil)
        _ = try await settling(delivery) { () throws(SignalError) in
            outcome = try await completeClaimed(delivery, endingConsumer: endingConsumer, thenStarting: next)
            return outcome.completed
        }
        // A next delivery that does not start is no longer in progress here.
        if let next, let started = outcome.next, started != .started {
            _ = inFlight.withLock { $0.remove(next.rowID) }
        }
        return outcome
    }

    /// Runs `settle` for a delivery in progress, which is then no longer in progress; when it fails,
    /// the delivery may stay claimed, so the next claim looks for lost claims.
    private func settling(
        _ delivery: ClaimedDelivery, _ settle: () async throws(SignalError) -> Bool
    ) async throws(SignalError) -> Bool {
        defer { _ = inFlight.withLock { $0.remove(delivery.rowID) } }
        do {
            return try await settle()
        } catch {
            claimMayBeLost.withLock { $0 = true }
            throw error
        }
    }

    private func completeClaimed(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, thenStarting next: ClaimedDelivery?
    ) async throws(SignalError) -> CompletionOutcome {
        let now = Date().timeIntervalSince1970
        let statement = PostgresStatements.Complete(
            rowID: delivery.rowID, runID: delivery.runID, attempt: delivery.attempt, now: now,
            endingConsumer: endingConsumer, nextRowID: next?.rowID, nextAttempt: next?.attempt)
        return try await connections.run("completing delivery \(delivery.key)") { connection, isRetry in
            var (completed, recorded, started) = (0, true, 0)
            for try await row in try await connection.execute(statement, logger: self.options.logger) {
                (completed, recorded, started) = row
            }
            let nextOutcome = next.map { _ in StartOutcome(marked: started == 1, runRecorded: recorded) }
            if completed == 0 && isRetry {
                // The connection was lost while the first try committed: its completion is recorded.
                let recordedBefore =
                    try await self.count(
                        connection.query(
                            """
                            SELECT count(*) FROM completions WHERE delivery_key = \(delivery.key.rawValue)
                            AND run_id = \(delivery.runID) AND attempt = \(delivery.attempt)
                            """, logger: self.options.logger)) > 0
                return CompletionOutcome(completed: recordedBefore, next: nextOutcome)
            }
            return CompletionOutcome(completed: completed == 1, next: nextOutcome)
        }
    }

    public func runStatus(of runID: String) async throws(SignalError) -> RunStatus {
        try await prepare()
        return try await connections.run("reading the status of run \(runID)") { connection, _ in
            var status = RunStatus(openDeliveries: 0, nextDue: nil)
            for try await (open, due) in try await connection.execute(
                PostgresStatements.Status(runID: runID), logger: self.options.logger)
            {
                status = RunStatus(stored: open, nextDue: due)
            }
            return status
        }
    }

    // MARK: Dead deliveries

    public func deadDeliveries(of component: String?) async throws(SignalError) -> [DeadDelivery] {
        try await run(StoreReads.deadDeliveries(of: component))
    }

    public func completions(of key: DeliveryKey) async throws(SignalError) -> [CompletionRecord] {
        try await run(StoreReads.completions(of: key))
    }

    public func statistics() async throws(SignalError) -> SignalStoreStatistics {
        try await run(StoreReads.statistics)
    }

    public func makeWakeListener() throws(SignalError) -> any SignalWakeListener {
        let keepers = keepers
        return PostgresWakeListener(
            channel: wakeChannel, rescanInterval: options.rescanInterval, logger: connections.logger
        ) { run in
            run.isEmpty || keepers.withLock { $0[run] != nil }
        }
    }

    // MARK: Reading results

    private func count(_ rows: PostgresRowSequence) async throws -> Int {
        var value = 0
        for try await number in rows.decode(Int.self) { value = number }
        return value
    }

    private func strings(_ rows: PostgresRowSequence) async throws -> [String] {
        var values: [String] = []
        for try await value in rows.decode(String.self) { values.append(value) }
        return values
    }
}

// MARK: Promises

extension PostgresSignalStore: PromiseStore {
    public func insertPromise(_ promise: PromiseRecord, applying plan: StorePlan) async throws(SignalError) -> Bool {
        try await prepare()
        let created = promise.createdAt.timeIntervalSince1970
        return try await connections.transaction("making promise '\(promise.id)'") { connection in
            let inserted = try await self.count(
                connection.query(
                    """
                    WITH i AS (INSERT INTO promises (promise_id, value_type, component, limited, consumer_id, created_at,
                                                     deadline, retention)
                               VALUES (\(promise.id), \(promise.valueType), \(promise.component),
                                       \(promise.storedLimited), \(promise.fallbackConsumer?.rawValue),
                                       \(created), \(promise.deadline?.timeIntervalSince1970), \(promise.retention))
                               ON CONFLICT (promise_id) DO NOTHING RETURNING 1)
                    SELECT count(*)::bigint FROM i
                    """, logger: self.options.logger))
            guard inserted == 1 else {
                // Made by this call's first try, whose answer a lost connection took: the same record.
                let same = try await self.count(
                    connection.query(
                        """
                        SELECT count(*)::bigint FROM promises WHERE promise_id = \(promise.id) AND created_at = \(created)
                        AND consumer_id IS NOT DISTINCT FROM \(promise.fallbackConsumer?.rawValue)
                        """, logger: self.options.logger))
                return same == 1
            }
            _ = try await self.run(plan, connection)
            return true
        }
    }

    public func promise(_ id: String) async throws(SignalError) -> PromiseRecord? {
        try await prepare()
        return try await connections.run("reading promise '\(id)'") { connection, _ in
            try await self.promiseRecords(
                connection.query(
                    "\(unescaped: Self.promiseColumns) WHERE promise_id = \(id)", logger: self.options.logger)
            ).first
        }
    }

    public func settlePromise(
        _ id: String, with settlement: PromiseSettlementRecord, ifValueTypeIn valueTypes: [String]?,
        thenPosting post: @escaping @Sendable (PromiseRecord) throws(SignalError) -> PromiseSettlementPost?
    ) async throws(SignalError) -> PromiseRecord? {
        if readsOnly { throw .storeReadOnly(path: location, operation: "settling promise '\(id)'") }
        try await prepare()
        let at = settlement.settledAt.timeIntervalSince1970
        return try await connections.transaction("settling promise '\(id)'") { connection in
            guard
                let stored = try await self.promiseRecords(
                    connection.query(
                        "\(unescaped: Self.promiseColumns) WHERE promise_id = \(id) FOR UPDATE",
                        logger: self.options.logger)
                ).first
            else { return nil }
            let settled = stored.settled(by: settlement, ifValueTypeIn: valueTypes)
            if settled != nil {
                try await connection.query(
                    """
                    UPDATE promises SET settlement_key = \(settlement.key), outcome = \(settlement.outcome.rawValue),
                        body = \(Data(settlement.body)), settled_at = \(at), keep_until = \(at) + retention
                    WHERE promise_id = \(id)
                    """, logger: self.options.logger)
            }
            let record = settled ?? stored
            if let request = try post(record) {
                let statement = self.postStatement(
                    Posting(signalID: request.signalID, payload: request.payload, keepUntil: nil),
                    now: Date().timeIntervalSince1970)
                for try await _ in try await connection.execute(statement, logger: self.options.logger) {}
            }
            if PromiseRecord.wakeUp(settled: settled != nil, record) != nil { try await self.notify(connection) }
            return record
        }
    }

    public func promises(settled: Bool?) async throws(SignalError) -> [PromiseRecord] {
        try await prepare()
        return try await connections.run("listing promises") { connection, _ in
            try await self.promiseRecords(
                connection.query(
                    """
                    \(unescaped: Self.promiseColumns)
                    WHERE \(settled)::boolean IS NULL OR (settled_at IS NOT NULL) = \(settled)::boolean
                    ORDER BY created_at, promise_id
                    """, logger: self.options.logger))
        }
    }

    public func removePromises(keptUntilBefore now: Date) async throws(SignalError) -> Int {
        try await prepare()
        return try await connections.run("removing promises kept until before \(now)") { connection, _ in
            try await self.count(
                connection.query(
                    """
                    WITH d AS (DELETE FROM promises WHERE keep_until < \(now.timeIntervalSince1970) RETURNING 1)
                    SELECT count(*)::bigint FROM d
                    """, logger: self.options.logger))
        }
    }

    private static let promiseColumns = """
        SELECT promise_id, value_type, component, limited, consumer_id, created_at, deadline, retention,
               settlement_key, outcome, body, settled_at FROM promises
        """

    private func promiseRecords(_ rows: PostgresRowSequence) async throws -> [PromiseRecord] {
        var records: [PromiseRecord] = []
        for try await (
            id, type, component, limited, consumer, created, deadline, retention, key, outcome, body, settledAt
        )
            in rows.decode(
                (String, String, String, Int, String?, Double, Double?, Double, String?, String?, Data?, Double?).self)
        {
            records.append(
                try PromiseRecord(
                    stored: id, valueType: type, component: component, limited: limited, consumer: consumer,
                    createdAt: created, deadline: deadline, retention: retention, settlementKey: key, outcome: outcome,
                    body: body, settledAt: settledAt))
        }
        return records
    }
}

/// The delivery states and the run-tied lifetime as the statements write them.
private let pending = DeliveryState.pending.sqlLiteral
private let claimed = DeliveryState.claimed.sqlLiteral
private let dead = DeliveryState.dead.sqlLiteral
/// The key of a delivery of the kept revision (`deliverKeptRevision`), built as the core builds keys.
#endif
