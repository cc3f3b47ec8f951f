import Foundation
import GRDB
import HandlerKit
import HandlerKitSignals
import Logging

/// The embedded signal store: one SQLite database file that every process of the machine opens
/// (through GRDB), in WAL mode. Every write is one `BEGIN IMMEDIATE` transaction; a process that
/// finds the database locked waits up to `Options.busyTimeout` (in short sleeps) and then throws
/// `SignalError.storeBusy` without having written anything, so a busy database never loses or
/// doubles a signal.
///
/// A store is more than its database file; keep its files together, and delete them only together.
/// What deleting each one costs:
///
/// - `<file>`: the database. Deleting it, or truncating it, loses the store: every consumer and
///   delivery. A store whose database is found empty or missing is refused with
///   `SignalError.storeLost` rather than made again, empty.
/// - `<file>-wal`: SQLite's write-ahead log, part of the database: the commits since the last
///   checkpoint are only there (up to 10,000 pages, 40 MB; a checkpoint copies them into `<file>` when
///   the log passes that and when the last process closes the store). Deleting it loses those commits
///   (posts, registrations, completions; a completion lost this way runs its handler again). When the
///   `-shm` file shows commits that were not yet copied, a process that opens the store gets
///   `SignalError.storeCorrupt` naming the `-wal` file; deleting the `-shm` file too (with no process
///   using the store) opens it without those commits.
/// - `<file>-shm`: the index of the `-wal` file, shared in memory by the processes. Deleting it costs
///   nothing once no process has the store open; while processes have it open, the processes that
///   open it next no longer see their commits, which can damage the database. Making it immutable
///   fails the store's operations with `SignalError.storeReadOnly`.
/// - `<file>.marker`: written when the store is made (or first opened by this version); it is how an
///   emptied or missing database is told from a new store. Deleting it costs nothing else.
/// - `<file>.runs/`: one lock file per live run (see `RunLockFile`); a suspended run's file stays,
///   unlocked, until the run is resumed or taken over. Deleting the folder, or a live run's file,
///   makes the run look gone: a process of its component that starts or calls
///   `SignalCenter.takeOverDeadRuns()` before the run makes its file again (at its next handler
///   start) takes it over while it still runs. Nothing is lost or completed twice: the run taken
///   over starts no handler of the deliveries it had claimed; one that was running when it was taken
///   over has its completion refused and runs again in the taker, with the same `deliveryKey`. The
///   center of that run carries on as a new run (reporting `SignalError.runTakenOver`), so no
///   delivery waits for a taker that does not come.
/// - `<file>.wake` (Linux): the file other processes are woken through (see `WakeFile`). Deleting it
///   costs nothing: it is made again and watched again at once (logged to `Options.logger`).
///
/// A `-wal` or `-shm` file that is not a regular file (a directory, say) is refused with
/// `SignalError.storeCorrupt` naming it; any other failure to open or read a file of the store while
/// opening it is `SignalError.storeUnavailable` naming the file and what to check.
public final class SQLiteSignalStore: SignalStore {
    /// How the store behaves.
    public struct Options: Sendable {
        /// How long a write waits for other processes' transactions before `SignalError.storeBusy`.
        public var busyTimeout: Duration
        /// `true`: every commit is flushed to disk (`synchronous=FULL`) and survives a power loss;
        /// `false` (default): commits survive any crash of the process (kill -9 included) and the
        /// database is never corrupted, but an OS crash or power loss may undo the last commits.
        public var flushEveryCommit: Bool
        /// How long completions stay in the history (`completions(of:)`).
        public var completionHistory: Duration
        /// The largest the database file may grow, in bytes (`nil`: no limit but the disk's). A write
        /// that would pass it fails with `SignalError.storeFull` and changes nothing.
        public var maximumSize: Int?
        /// Where the store reports, at `info`, what it repaired or could not repair on its own (a
        /// wake file made again, a `-shm` file given back its size, a marker it could not write), with
        /// the metadata keys `handlerkit.store` (its path) and `handlerkit.file`. `nil` (the
        /// default): the task-local `Logger.current` of the code that opens the store.
        public var logger: Logger?
        /// The data protection of the files the store makes (database, `-wal`, `-shm`, marker, wake
        /// file, the runs folder and its lock files), on Apple platforms; nothing elsewhere. The
        /// default lets processes that run while the device is locked open the store.
        public var fileProtection: FileProtection
        /// For this package's tests: called at `SignalFaultPoint.postBeforeCommit`, inside the post's
        /// transaction.
        package var faultHook: (@Sendable (SignalFaultPoint) -> Void)?

        public init(
            busyTimeout: Duration = .seconds(10), flushEveryCommit: Bool = false,
            completionHistory: Duration = .seconds(86_400), maximumSize: Int? = nil, logger: Logger? = nil,
            fileProtection: FileProtection = .completeUntilFirstUserAuthentication
        ) {
            self.busyTimeout = busyTimeout
            self.flushEveryCommit = flushEveryCommit
            self.completionHistory = completionHistory
            self.maximumSize = maximumSize
            self.logger = logger
            self.fileProtection = fileProtection
        }
    }

    /// The database file.
    public let path: String
    public var location: String { path }
    let options: Options
    /// The database connection; `nil` while every run of this store object is suspended (made
    /// again by the next operation).
    private let database: Locked<DatabaseQueue?>
    private let sharedMemory: SharedMemoryGuard
    private let runLocks = RunLocks()
    /// Whether the store was opened for reading only (``init(inspecting:options:)``).
    let readsOnly: Bool

    /// Opens (creating and migrating when needed) the store at `path`.
    ///
    /// A signal store is marked with its own `PRAGMA application_id`; a database that holds anything
    /// else is refused before anything is written to it.
    ///
    /// Processes opening a new store at the same time make it once; none of them fails for the others.
    ///
    /// - Throws: `SignalError.notASignalStore` for a database that is not a signal store (left
    ///   unchanged), `.newerSchema` for a signal store of a newer version (left unchanged),
    ///   `.storeLost` for a store whose database file was emptied or deleted, `.storeCorrupt` for a
    ///   file that is not an SQLite database or is damaged (cut short, pages missing), for a `-wal`
    ///   file lost with commits not yet copied into the database, and for a `-wal` or `-shm` file that
    ///   is not a regular file, `.storeReadOnly`, `.storeBusy` when other processes kept it locked
    ///   for `Options.busyTimeout`, `.storeUnavailable` naming a file that cannot be opened or read.
    public convenience init(path: String, options: Options = Options()) throws(SignalError) {
        try self.init(path: path, options: options, readsOnly: false)
    }

    /// Opens the store at `path` for reading only, as an operator's tool looks into it
    /// (`SignalStoreInspector`): nothing is created, migrated or marked, the database file is not
    /// written, and every operation that writes throws `SignalError.storeReadOnly`. SQLite may make
    /// the `-wal` and `-shm` files next to it when they are missing, empty, as a process of the store
    /// would.
    ///
    /// - Throws: `SignalError.storeUnavailable` when there is no database file at `path` or it is
    ///   empty, `.notASignalStore`, `.newerSchema`, `.storeCorrupt`. A store of an older schema is
    ///   read as it is (without what later versions record, such as when a delivery was claimed).
    public convenience init(inspecting path: String, options: Options = Options()) throws(SignalError) {
        try self.init(path: path, options: options, readsOnly: true)
    }

    private init(path: String, options: Options, readsOnly: Bool) throws(SignalError) {
        self.path = path
        var options = options
        var storeLogger = options.logger ?? Logger.current
        storeLogger[metadataKey: SignalLogKey.store] = .string(path)
        options.logger = storeLogger
        self.options = options
        self.readsOnly = readsOnly
        let logger = storeLogger
        database = Locked(
            readsOnly
                ? try Self.openForReading(path: path, options: options)
                : try Self.openDatabase(path: path, options: options))
        let file = StoreFiles(path: path).sharedMemory
        sharedMemory = SharedMemoryGuard(path: file) { found, size in
            logger.info(
                "the -shm file was cut while open; gave it back its size, SQLite rebuilds its index from the -wal file",
                metadata: [
                    "handlerkit.file": .string(file), "handlerkit.found_bytes": .stringConvertible(found),
                    "handlerkit.restored_bytes": .stringConvertible(size),
                ])
        }
    }

    deinit {
        if let queue = database.withLock({ $0 }) { keepOpenWhenFrozen(queue) }
    }

    /// Closing the connection writes its `-shm` file, which kills the process once that file is
    /// immutable (see `SharedMemoryGuard`): the connection is then left open until the process exits.
    private func keepOpenWhenFrozen(_ queue: DatabaseQueue) {
        if sharedMemory.isFrozen { _ = Unmanaged.passRetained(queue) }
    }

    /// The database connection, opened again when a suspension closed it.
    private func connection() throws(SignalError) -> DatabaseQueue {
        try database.withLock { database throws(SignalError) in
            if let database { return database }
            let opened =
                readsOnly
                ? try Self.openForReading(path: path, options: options)
                : try Self.reopenDatabase(path: path, options: options)
            // The last connection to close may have removed the `-shm` file, and this one made it again.
            sharedMemory.refresh()
            database = opened
            return opened
        }
    }

    /// The folder of run lock files.
    var runsDirectory: String { path + ".runs" }
    /// The file other processes are woken through.
    var wakePath: String { path + ".wake" }

    // MARK: Statements run for every signal (built once)

    private static let insertDeliverySQL = """
        INSERT INTO deliveries (delivery_key, consumer_id, signal_id, revision, component, owner_run, lifetime,
                                handler_id, state, attempt, not_before, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, \(pending), 0, ?, ?)
        """
    private static let anyDueSQL = """
        SELECT EXISTS (SELECT 1 FROM deliveries WHERE owner_run = ? AND state = \(pending) AND not_before <= ?)
        """
    private static let claimSQL = """
        UPDATE deliveries SET state = \(claimed), claimed_by = ?1, attempt = attempt + 1, started = 0, claimed_at = ?2
        WHERE id IN (SELECT id FROM deliveries WHERE owner_run = ?1 AND state = \(pending) AND not_before <= ?2
                     ORDER BY id LIMIT ?3)
        AND EXISTS (SELECT 1 FROM runs WHERE run_id = ?1)
        RETURNING id, delivery_key, consumer_id, signal_id, revision, attempt, crashed
        """
    private static let startSQL = """
        UPDATE deliveries SET started = 1 WHERE id = ?1 AND state = \(claimed) AND claimed_by = ?2 AND attempt = ?3
        AND EXISTS (SELECT 1 FROM runs WHERE run_id = ?2)
        """
    private static let completeSQL = """
        DELETE FROM deliveries WHERE id = ? AND state = \(claimed) AND claimed_by = ? AND attempt = ?
        """

    // MARK: Runs

    public func beginRun(
        _ runID: String, component: String, retry: RetryPolicy, applying plan: StorePlan
    ) async throws(SignalError) {
        let lock = try RunLockFile(runID: runID, directory: runsDirectory, maker: fileMaker)
        runLocks.insert(lock, for: runID)
        let now = Date().timeIntervalSince1970
        let pid = Int(ProcessInfo.processInfo.processIdentifier)
        let history = options.completionHistory.seconds
        do {
            try await write("starting run \(runID) of component '\(component)'") { db in
                try db.execute(
                    sql: "INSERT INTO runs (run_id, component, pid, started_at) VALUES (?, ?, ?, ?)",
                    arguments: [runID, component, pid, now])
                _ = try Self.run(plan, db, history: history)
            }
        } catch {
            runLocks.remove(runID)?.release()
            throw error
        }
    }

    public func endRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        _ = try await apply(plan, "ending run \(runID) of component '\(component)'")
        runLocks.remove(runID)?.release()
    }

    /// Closes the run's lock file (its lock is free for a taker; the file stays) and, when no other
    /// run of this store object is active, the database connection: SQLite in WAL mode holds a lock
    /// on the `-shm` file for as long as any connection is open, so closing it is the only way to
    /// hold no lock at all.
    public func suspendRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int] {
        let counts = try await apply(plan, "suspending run \(runID) of component '\(component)'")
        runLocks.remove(runID)?.abandon()
        closeWhenIdle()
        return counts
    }

    /// Locks the run's lock file again (waiting, at most `Options.busyTimeout`, while a taker holds
    /// it), then, in one transaction, finds the run's record. Without it the run was taken over:
    /// the lock file made again is removed, and the connection closed when no other run is active.
    public func resumeRun(
        _ runID: String, component: String, retry: RetryPolicy, applying plan: StorePlan
    ) async throws(SignalError) -> Bool {
        let lock = try await RunLockFile.retake(runID: runID, directory: runsDirectory, patience: options.busyTimeout)
        runLocks.insert(lock, for: runID)?.abandon()
        let history = options.completionHistory.seconds
        let counts: [Int]?
        do {
            counts = try await write("resuming run \(runID) of component '\(component)'") { db -> [Int]? in
                guard try Self.isRecorded(runID, db) else { return nil }
                return try Self.run(plan, db, history: history)
            }
        } catch {
            runLocks.remove(runID)?.abandon()
            closeWhenIdle()
            throw error
        }
        guard let counts else {
            runLocks.remove(runID)?.release()
            closeWhenIdle()
            return false
        }
        if plan.wakeUp(counts: counts) != nil { WakeFile.notify(wakePath) }
        return true
    }

    /// Closes the database connection when no run of this store object is active (all suspended),
    /// and then the `-shm` guard's descriptor, so that the process holds no file of the store open.
    private func closeWhenIdle() {
        guard runLocks.isEmpty, let queue = database.withLock({ $0.take() }) else { return }
        if sharedMemory.isFrozen {
            keepOpenWhenFrozen(queue)
            return
        }
        do {
            try queue.close()
            sharedMemory.close()
        } catch {
            // The queue closes its connection when it is released; the guard keeps its descriptor
            // until it does (closing it first would drop SQLite's locks on the file).
        }
    }

    public func runs(of component: String) async throws(SignalError) -> RunsOfComponent {
        try await read("finding the runs of component '\(component)'") { db in
            func runs(_ sql: String) throws -> Set<String> {
                Set(try String.fetchAll(db, sql: sql, arguments: [component]))
            }
            return RunsOfComponent(
                recorded: try runs("SELECT run_id FROM runs WHERE component = ?"),
                namedByConsumers: try runs("SELECT DISTINCT run_id FROM consumers WHERE component = ?"),
                owningDeliveries: try runs("SELECT DISTINCT owner_run FROM deliveries WHERE component = ?"))
        }
    }

    /// A run is gone when its lock file is free (or missing); the plan is applied while this process
    /// holds that lock, so two processes never take over the same run, and a run whose file was
    /// removed cannot make it again meanwhile. The taker must still be recorded, in the same
    /// transaction: a run that was itself taken over takes nothing over.
    public func takeOver(
        _ run: String, of component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int]? {
        let lockPath = RunLockFile.path(of: run, in: runsDirectory)
        let history = options.completionHistory.seconds
        let counts = try await RunLockFile.ifDead(lockPath, maker: fileMaker) { () throws(SignalError) -> [Int]? in
            try await self.write("taking over dead run \(run) of component '\(component)'") { db -> [Int]? in
                if let taker = plan.taker, try !Self.isRecorded(taker, db) { return nil }
                return try Self.run(plan, db, history: history)
            }
        }
        guard let counts = counts ?? nil else { return nil }
        if plan.wakeUp(counts: counts) != nil { WakeFile.notify(wakePath) }
        return counts
    }

    /// Whether run `runID` is recorded (not ended, not taken over), in the caller's transaction.
    private static func isRecorded(_ runID: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM runs WHERE run_id = ?)"), arguments: [runID]) == true
    }

    public func apply(_ plan: StorePlan) async throws(SignalError) -> [Int] {
        try await apply(plan, plan.purpose)
    }

    /// Applies `plan` in one transaction, then wakes whom it names.
    private func apply(_ plan: StorePlan, _ operation: @autoclosure () -> String) async throws(SignalError) -> [Int] {
        let history = options.completionHistory.seconds
        let counts = try await write(operation()) { db in try Self.run(plan, db, history: history) }
        if plan.wakeUp(counts: counts) != nil { WakeFile.notify(wakePath) }
        return counts
    }

    /// Makes the steps of `plan` in the caller's transaction; returns the rows each changed.
    private static func run(_ plan: StorePlan, _ db: Database, history: Double) throws -> [Int] {
        try plan.steps.map { step in try make(step, db, history: history) }
    }

    /// Makes one step; returns the rows it changed (its last statement's).
    private static func make(_ step: StoreStep, _ db: Database, history: Double) throws -> Int {
        switch step {
        case .interruptClaims(let run, let attempts):
            // A started attempt counts (dead at the maximum, else pending from the retry time); an
            // attempt never started does not.
            try db.execute(
                sql: """
                    UPDATE deliveries SET claimed_by = NULL, started = 0, crashed = 1, last_error = ?3 || attempt,
                        state = CASE WHEN attempt >= ?2 THEN \(dead) ELSE \(pending) END,
                        not_before = CASE WHEN attempt >= ?2 THEN not_before ELSE ?4 END
                    WHERE claimed_by = ?1 AND state = \(claimed) AND started = 1
                    """, arguments: [run, attempts.maximumAttempts, attempts.reason, attempts.retryAt])
            let counted = db.changesCount
            try db.execute(
                sql: """
                    UPDATE deliveries SET claimed_by = NULL, state = \(pending), attempt = attempt - 1
                    WHERE claimed_by = ? AND state = \(claimed)
                    """, arguments: [run])
            return counted + db.changesCount
        case .giveBackClaims(let run, let keeping):
            let kept = keeping.isEmpty ? "" : " AND id NOT IN (\(keeping.map(String.init).joined(separator: ", ")))"
            try db.execute(
                sql: """
                    UPDATE deliveries SET claimed_by = NULL, state = \(pending), attempt = attempt - 1, started = 0
                    WHERE claimed_by = ? AND state = \(claimed)\(kept)
                    """, arguments: [run])
            return db.changesCount
        case .deliverKeptRevision(let consumer, let now):
            guard
                let kept = try Row.fetchOne(
                    db, sql: "SELECT revision, payload FROM signals WHERE signal_id = ? AND keep_until >= ?",
                    arguments: [consumer.signalID, now])
            else { return 0 }
            let revision: Int = try column(kept, "revision", table: "signals", key: consumer.signalID)
            let payload: Data = try column(kept, "payload", table: "signals", key: consumer.signalID)
            try insertDelivery(
                db, consumer: consumer.id.rawValue, signalID: consumer.signalID, revision: revision,
                component: consumer.component, owner: consumer.runID, lifetime: consumer.lifetime.rawValue,
                handler: Data(consumer.handler), handlerID: consumer.handlerID, payload: payload, now: now)
            return 1
        default:
            for (sql, arguments) in statements(for: step, history: history) {
                try db.execute(sql: sql, arguments: arguments)
            }
            return db.changesCount
        }
    }

    /// The SQL statements of a step made by statements alone, and their arguments.
    private static func statements(for step: StoreStep, history: Double) -> [(String, StatementArguments)] {
        switch step {
        case .interruptClaims, .giveBackClaims, .deliverKeptRevision:
            []
        case .removeRunTiedDeliveries(let run):
            deletingDeliveries(where: "owner_run = ? AND lifetime = \(runTied) AND state != \(dead)", [run])
        case .removeRunTiedConsumers(let run):
            [("DELETE FROM consumers WHERE run_id = ? AND lifetime = \(runTied)", [run])]
        case .moveConsumers(let run, let taker):
            [("UPDATE consumers SET run_id = ? WHERE run_id = ?", [taker, run])]
        case .moveDeliveries(let run, let taker):
            [("UPDATE deliveries SET owner_run = ? WHERE owner_run = ?", [taker, run])]
        case .moveConsumer(let id, let run):
            [("UPDATE consumers SET run_id = ? WHERE consumer_id = ?", [run, id])]
        case .movePendingDeliveries(let consumer, let run):
            [
                (
                    """
                    UPDATE deliveries SET owner_run = ?1 WHERE consumer_id = ?2 AND state = \(pending)
                    AND EXISTS (SELECT 1 FROM consumers WHERE consumer_id = ?2)
                    """, [run, consumer]
                )
            ]
        case .removeRun(let run):
            [("DELETE FROM runs WHERE run_id = ?", [run])]
        case .removePendingDeliveries(let consumer):
            deletingDeliveries(where: "consumer_id = ? AND state = \(pending)", [consumer])
        case .removeConsumer(let id):
            [("DELETE FROM consumers WHERE consumer_id = ?", [id])]
        case .removeUnusedSignals(let now):
            [
                (
                    """
                    DELETE FROM signals WHERE (keep_until IS NULL OR keep_until < ?)
                    AND NOT EXISTS (SELECT 1 FROM consumers WHERE consumers.signal_id = signals.signal_id)
                    """, [now]
                )
            ]
        case .forgetCompletions(let now):
            [("DELETE FROM completions WHERE completed_at < ?", [now - history])]
        case .insertConsumer(let consumer, let now):
            [
                (
                    """
                    INSERT INTO consumers (consumer_id, signal_id, component, run_id, lifetime, mode, handler, handler_id, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        consumer.id.rawValue, consumer.signalID, consumer.component, consumer.runID,
                        consumer.lifetime.rawValue, consumer.mode.rawValue, Data(consumer.handler),
                        consumer.handlerID, now,
                    ]
                )
            ]
        case .markServedWhenDelivered(let consumer):
            [
                (
                    """
                    UPDATE consumers SET delivered = 1
                    WHERE consumer_id = ?1 AND EXISTS (SELECT 1 FROM deliveries WHERE consumer_id = ?1)
                    """, [consumer]
                )
            ]
        case .removeDelivery(let key):
            deletingDeliveries(where: "delivery_key = ? AND state != \(claimed)", [key])
        case .removeCompletions(let key, let before):
            [("DELETE FROM completions WHERE (?1 IS NULL OR delivery_key = ?1) AND completed_at < ?2", [key, before])]
        case .requeueDead(let key, let now):
            [
                (
                    """
                    UPDATE deliveries SET state = \(pending), attempt = 0, not_before = ?, last_error = NULL,
                        started = 0, crashed = 0
                    WHERE delivery_key = ? AND state = \(dead)
                    """, [now, key]
                )
            ]
        case .releaseClaim(let release):
            [
                (
                    """
                    UPDATE deliveries SET state = ?, claimed_by = NULL, last_error = ?, not_before = COALESCE(?, not_before),
                        started = 0, crashed = 0
                    WHERE id = ? AND state = \(claimed) AND claimed_by = ? AND attempt = ?
                    """,
                    [
                        release.state.rawValue, release.reason, release.dueAt, release.rowID, release.run,
                        release.attempt,
                    ]
                )
            ]
        }
    }

    /// Deletes the deliveries that match `condition`, their bodies first.
    private static func deletingDeliveries(
        where condition: String, _ arguments: StatementArguments
    ) -> [(String, StatementArguments)] {
        [
            (
                "DELETE FROM delivery_bodies WHERE delivery_id IN (SELECT id FROM deliveries WHERE \(condition))",
                arguments
            ),
            ("DELETE FROM deliveries WHERE \(condition)", arguments),
        ]
    }

    // MARK: Consumers

    public func consumers(of component: String?) async throws(SignalError) -> [ConsumerRecord] {
        try await read("listing consumers") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM consumers WHERE ?1 IS NULL OR component = ?1 ORDER BY created_at, consumer_id
                    """, arguments: [component])
            return try rows.map { row in
                let key: String = try Self.column(row, "consumer_id", table: "consumers", key: "?")
                func value<T: DatabaseValueConvertible>(_ name: String) throws -> T {
                    try Self.column(row, name, table: "consumers", key: key)
                }
                return try ConsumerRecord(
                    stored: key, signalID: try value("signal_id"), component: try value("component"),
                    runID: try value("run_id"), lifetime: try value("lifetime"), mode: try value("mode"),
                    handler: try value("handler"), handlerID: try value("handler_id"))
            }
        }
    }

    // MARK: Posting

    public func post(_ signalID: String, payload: [UInt8], keepUntil: Date?) async throws(SignalError) -> PostResult {
        let hook = options.faultHook
        let posting = Posting(signalID: signalID, payload: payload, keepUntil: keepUntil)
        let result = try await write("posting signal '\(signalID)'") { db in
            let result = try Self.post(posting, in: db)
            hook?(.postBeforeCommit)
            return result
        }
        if result.deliveries > 0 { WakeFile.notify(wakePath) }
        return result
    }

    /// Posts in the transaction of `db` (``post(_:payload:keepUntil:)`` without its wake-up).
    private static func post(_ posting: Posting, in db: Database) throws -> PostResult {
        let signalID = posting.signalID
        let payload = posting.payload
        let now = Date().timeIntervalSince1970
        let previous = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT revision FROM signals WHERE signal_id = ?"),
            arguments: [signalID])
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT consumer_id, component, run_id, lifetime, mode, handler, handler_id, delivered FROM consumers
                    WHERE signal_id = ? ORDER BY created_at, consumer_id
                    """), arguments: [signalID])
        let keys: [String] = try rows.map { row in try Self.column(row, "consumer_id", table: "consumers", key: "?")
        }
        let decision = posting.decide(
            previousRevision: previous,
            consumers: try zip(rows, keys).map { row, key in
                Posting.Consumer(
                    mode: try Self.column(row, "mode", table: "consumers", key: key),
                    served: (try Self.column(row, "delivered", table: "consumers", key: key) as Int) != 0)
            })
        let payloadData = Data(payload)
        for (index, serves) in decision.deliveries {
            let (row, key) = (rows[index], keys[index])
            try Self.insertDelivery(
                db, consumer: key, signalID: signalID, revision: decision.revision,
                component: try Self.column(row, "component", table: "consumers", key: key),
                owner: try Self.column(row, "run_id", table: "consumers", key: key),
                lifetime: try Self.column(row, "lifetime", table: "consumers", key: key),
                handler: row["handler"] as DatabaseValue,
                handlerID: try Self.column(row, "handler_id", table: "consumers", key: key),
                payload: payloadData, now: now)
            if serves {
                try db.cachedStatement(sql: "UPDATE consumers SET delivered = 1 WHERE consumer_id = ?").execute(
                    arguments: [key])
            }
        }
        if decision.keepsRecord {
            try db.cachedStatement(
                sql: """
                    INSERT INTO signals (signal_id, revision, payload, posted_at, keep_until) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(signal_id) DO UPDATE SET revision = excluded.revision, payload = excluded.payload,
                        posted_at = excluded.posted_at, keep_until = excluded.keep_until
                    """
            ).execute(arguments: [signalID, decision.revision, Data(posting.keptPayload), now, posting.keepUntil])
        } else {
            try db.execute(sql: "DELETE FROM signals WHERE signal_id = ?", arguments: [signalID])
        }
        return posting.result(revision: decision.revision, deliveries: decision.deliveries.count)
    }

    private static func insertDelivery(
        _ db: Database, consumer: String, signalID: String, revision: Int, component: String, owner: String,
        lifetime: String,
        handler: some DatabaseValueConvertible, handlerID: String, payload: Data, now: Double
    ) throws {
        try db.cachedStatement(sql: Self.insertDeliverySQL).execute(arguments: [
            DeliveryKey(consumer: consumer, revision: revision).rawValue, consumer, signalID, revision,
            component, owner, lifetime, handlerID, now, now,
        ])
        try db.cachedStatement(sql: "INSERT INTO delivery_bodies (delivery_id, handler, payload) VALUES (?, ?, ?)")
            .execute(arguments: [db.lastInsertedRowID, handler, payload])
    }

    // MARK: Delivering

    public func claim(for runID: String, limit: Int) async throws(SignalError) -> [ClaimedDelivery] {
        try await claim(for: runID, limit: limit, startingFirst: false).deliveries
    }

    /// Also checks the run's lock file, as ``start(_:)`` does. A run that is no longer recorded
    /// claims nothing: when deliveries of its are due, the batch is empty with
    /// `firstStart` `.runTakenOver`.
    public func claimStartingFirst(for runID: String, limit: Int) async throws(SignalError) -> ClaimedBatch {
        try await claim(for: runID, limit: limit, startingFirst: true)
    }

    /// Claims, and with `startingFirst` marks the delivery that runs first started in the same transaction.
    private func claim(for runID: String, limit: Int, startingFirst: Bool) async throws(SignalError) -> ClaimedBatch {
        let now = Date().timeIntervalSince1970
        // A read first: when nothing is due (a wake-up for another component's post), no write lock is taken.
        let due = try await read("looking for due deliveries of run \(runID)") { db in
            try Bool.fetchOne(db.cachedStatement(sql: Self.anyDueSQL), arguments: [runID, now]) ?? false
        }
        guard due else { return ClaimedBatch(deliveries: [], firstStart: nil) }
        let mark = startingFirst ? marking(run: runID) : nil
        return try await write("claiming deliveries for run \(runID)") { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: Self.claimSQL), arguments: [runID, now, limit])
            // Due deliveries, none claimed: a run that was taken over claims nothing, and says so.
            if rows.isEmpty, try !Self.isRecorded(runID, db) {
                return ClaimedBatch(deliveries: [], firstStart: .runTakenOver)
            }
            var claimed: [ClaimedDelivery] = []
            for row in rows {
                let reading = ClaimedDelivery.reading(claimedBy: runID) {
                    let body = try Row.fetchOne(
                        db.cachedStatement(
                            sql: """
                                SELECT handler, payload, (SELECT mode FROM consumers WHERE consumer_id = ?) AS mode
                                FROM delivery_bodies WHERE delivery_id = ?
                                """), arguments: [row["consumer_id"] as DatabaseValue, row["id"] as DatabaseValue])
                    return try Self.claimedColumns(row, body: body)
                }
                switch reading {
                case .run(let delivery): claimed.append(delivery)
                case .park(let reason):
                    try db.execute(
                        sql: "UPDATE deliveries SET state = \(dead), claimed_by = NULL, last_error = ? WHERE id = ?",
                        arguments: [reason, row["id"] as DatabaseValue])
                }
            }
            let deliveries = ClaimedDelivery.runningOrder(claimed)
            return ClaimedBatch(deliveries: deliveries, firstStart: try deliveries.first.flatMap { try mark?(db, $0) })
        }
    }

    /// The columns of a claimed delivery (`body`: its body's row, with its consumer's mode).
    private static func claimedColumns(_ row: Row, body: Row?) throws -> ClaimedColumns {
        let key: String = try column(row, "delivery_key", table: "deliveries", key: "row \(row["id"] as DatabaseValue)")
        func value<T: DatabaseValueConvertible>(_ name: String) throws -> T {
            try column(row, name, table: "deliveries", key: key)
        }
        func bodyValue(_ name: String) throws -> Data? {
            try body.map { body in try column(body, name, table: "delivery_bodies", key: key) }
        }
        return ClaimedColumns(
            rowID: try value("id"), key: key, consumer: try value("consumer_id"), signalID: try value("signal_id"),
            revision: try value("revision"), attempt: try value("attempt"), crashed: (try value("crashed") as Int) != 0,
            handler: try bodyValue("handler"), payload: try bodyValue("payload"),
            mode: body.flatMap { String.fromDatabaseValue($0["mode"] as DatabaseValue) })
    }

    /// Also checks the run's lock file: when it is gone (its folder was removed), it is made and
    /// locked again while the run's record is still there; without the record the run was taken over.
    public func start(_ delivery: ClaimedDelivery) async throws(SignalError) -> StartOutcome {
        let mark = marking(run: delivery.runID)
        return try await write("starting delivery \(delivery.key)") { db in try mark(db, delivery) }
    }

    /// Marks a delivery claimed by `runID` started in the caller's transaction (`start`), the run's
    /// lock file tested now.
    private func marking(run runID: String) -> @Sendable (Database, ClaimedDelivery) throws -> StartOutcome {
        let intact = runLocks.file(for: runID)?.isIntact ?? true
        let runsDirectory = runsDirectory
        let runLocks = runLocks
        return { db, delivery in
            func mark() throws -> Bool {
                try db.cachedStatement(sql: Self.startSQL).execute(arguments: [
                    delivery.rowID, delivery.runID, delivery.attempt,
                ])
                return db.changesCount == 1
            }
            // The usual case in one statement; the rest tells why the mark failed, or renews the lock file.
            if intact, try mark() { return StartOutcome(marked: true, runRecorded: true) }
            let recorded = try Self.isRecorded(delivery.runID, db)
            guard recorded, !intact else { return StartOutcome(marked: false, runRecorded: recorded) }
            let renewed = try RunLockFile(runID: delivery.runID, directory: runsDirectory, maker: self.fileMaker)
            runLocks.insert(renewed, for: delivery.runID)?.abandon()
            return StartOutcome(marked: try mark(), runRecorded: true)
        }
    }

    public func complete(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, thenStarting next: ClaimedDelivery?
    ) async throws(SignalError) -> CompletionOutcome {
        let now = Date().timeIntervalSince1970
        let markNext = next.map { marking(run: $0.runID) }
        return try await write("completing delivery \(delivery.key)") { db in
            let completed = try Self.complete(delivery, endingConsumer: endingConsumer, now: now, db)
            return CompletionOutcome(completed: completed, next: try next.flatMap { try markNext?(db, $0) })
        }
    }

    /// Completes `delivery` in the caller's transaction; `false` when its claim was lost.
    private static func complete(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, now: Double, _ db: Database
    ) throws -> Bool {
        try db.cachedStatement(sql: Self.completeSQL).execute(arguments: [
            delivery.rowID, delivery.runID, delivery.attempt,
        ])
        guard db.changesCount == 1 else { return false }
        try db.cachedStatement(sql: "DELETE FROM delivery_bodies WHERE delivery_id = ?").execute(arguments: [
            delivery.rowID
        ])
        try db.cachedStatement(
            sql: """
                INSERT INTO completions (delivery_key, consumer_id, signal_id, revision, run_id, attempt, completed_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            delivery.key.rawValue, delivery.consumerID.rawValue, delivery.signalID,
            delivery.revision, delivery.runID, delivery.attempt, now,
        ])
        guard endingConsumer else { return true }
        try db.cachedStatement(sql: "DELETE FROM consumers WHERE consumer_id = ?")
            .execute(arguments: [delivery.consumerID.rawValue])
        if db.changesCount > 0 {
            try db.cachedStatement(
                sql: """
                    DELETE FROM signals WHERE signal_id = ?1 AND (keep_until IS NULL OR keep_until < ?2)
                    AND NOT EXISTS (SELECT 1 FROM consumers WHERE signal_id = ?1)
                    """
            ).execute(arguments: [delivery.signalID, now])
        }
        return true
    }

    public func runStatus(of runID: String) async throws(SignalError) -> RunStatus {
        try await read("reading the status of run \(runID)") { db in
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT COUNT(*) AS open, MIN(CASE WHEN state = \(pending) THEN not_before END) AS due
                        FROM deliveries WHERE owner_run = ? AND state IN (\(pending), \(claimed))
                        """), arguments: [runID])
            return RunStatus(
                stored: row.flatMap { Int.fromDatabaseValue($0["open"] as DatabaseValue) } ?? 0,
                nextDue: row.flatMap { Double.fromDatabaseValue($0["due"] as DatabaseValue) })
        }
    }

    // MARK: Dead deliveries

    public func deadDeliveries(of component: String?) async throws(SignalError) -> [DeadDelivery] {
        try await read("listing dead deliveries") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT delivery_key, signal_id, revision, consumer_id, component, handler_id, attempt, last_error
                    FROM deliveries WHERE state = \(dead) AND (?1 IS NULL OR component = ?1) ORDER BY id
                    """, arguments: [component])
            return rows.map { row in
                // A record with an unreadable column is still listed (it can be requeued by its key),
                // with what is wrong with it in its reason.
                func text(_ name: String) -> String { String.fromDatabaseValue(row[name] as DatabaseValue) ?? "" }
                let key = text("delivery_key")
                var reason = String.fromDatabaseValue(row["last_error"] as DatabaseValue) ?? DeadDelivery.unknownReason
                func value<T: DatabaseValueConvertible>(_ name: String, _ fallback: T) -> T {
                    do {
                        return try Self.column(row, name, table: "deliveries", key: key)
                    } catch {
                        reason += "; \(error)"
                        return fallback
                    }
                }
                return DeadDelivery(
                    key: DeliveryKey(key), signalID: value("signal_id", ""), revision: value("revision", 0),
                    consumerID: ConsumerID(value("consumer_id", "")), component: value("component", ""),
                    handlerID: value("handler_id", ""), attempts: value("attempt", 0), reason: reason)
            }
        }
    }

    public func completions(of key: DeliveryKey) async throws(SignalError) -> [CompletionRecord] {
        try await read("reading the completions of \(key)") { db in
            try Row.fetchAll(
                db, sql: "SELECT run_id, attempt FROM completions WHERE delivery_key = ? ORDER BY completed_at",
                arguments: [key.rawValue]
            ).map { row in
                CompletionRecord(
                    key: key, runID: try Self.column(row, "run_id", table: "completions", key: key.rawValue),
                    attempt: try Self.column(row, "attempt", table: "completions", key: key.rawValue))
            }
        }
    }

    public func statistics() async throws(SignalError) -> SignalStoreStatistics {
        try await read("reading statistics") { db in
            func count(_ table: String) throws -> Int {
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
            }
            let states = try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS count FROM deliveries GROUP BY state")
                .map { row in
                    (
                        state: String.fromDatabaseValue(row["state"] as DatabaseValue),
                        count: try Self.column(row, "count", table: "deliveries", key: "COUNT(*)") as Int
                    )
                }
            return SignalStoreStatistics(
                runs: try count("runs"), consumers: try count("consumers"), signals: try count("signals"),
                completions: try count("completions"), deliveries: states)
        }
    }

    public func makeWakeListener() throws(SignalError) -> any SignalWakeListener {
        try WakeFileListener(path: wakePath, maker: fileMaker, logger: options.logger)
    }

    // MARK: Transactions and errors

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction, on the calling thread: a transaction takes
    /// tens of microseconds, less than a hop to GRDB's queue and back costs under load. While another
    /// process holds the write lock, the thread waits (at most `Options.busyTimeout`).
    @discardableResult
    func write<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(SignalError) -> T {
        let started = ContinuousClock.now
        do {
            return try writeNow { db in try Self.inTransaction(db, beginning: "BEGIN IMMEDIATE TRANSACTION", body) }
        } catch {
            throw Self.signalError(
                error, path: path, operation: operation(), busyWait: (ContinuousClock.now - started).seconds)
        }
    }

    /// Runs `body` in a read transaction, on the calling thread.
    func read<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(SignalError) -> T {
        let started = ContinuousClock.now
        do {
            return try readNow(body)
        } catch {
            throw Self.signalError(
                error, path: path, operation: operation(), busyWait: (ContinuousClock.now - started).seconds)
        }
    }

    /// `body` in a `BEGIN DEFERRED` transaction (a read one while it only reads), on the calling thread.
    private func readNow<T>(_ body: (Database) throws -> T) throws -> T {
        try writeNow { db in try Self.inTransaction(db, beginning: "BEGIN DEFERRED TRANSACTION", body) }
    }

    /// Runs `body` between `begin` and `COMMIT`, rolled back when it throws. Both statements are
    /// prepared once per connection: GRDB's `inTransaction` and `read` prepare theirs (and, for a
    /// read, two `PRAGMA query_only` statements) at every call, which took about a tenth of a
    /// delivery's time in SQLite's parser and GRDB's statement authorizer.
    private static func inTransaction<T>(
        _ db: Database, beginning begin: String, _ body: (Database) throws -> T
    ) throws -> T {
        try db.cachedStatement(sql: begin).execute()
        do {
            let result = try body(db)
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        } catch {
            if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
            throw error
        }
    }

    /// `DatabaseQueue.writeWithoutTransaction`'s synchronous form.
    private func writeNow<T>(_ body: (Database) throws -> T) throws -> T {
        try sharedMemory.check()
        return try connection().writeWithoutTransaction(body)
    }

    /// A column of a stored row as `T`, or `SignalError.malformedRecord` naming the table, key and column.
    static func column<T: DatabaseValueConvertible>(_ row: Row, _ name: String, table: String, key: String) throws -> T
    {
        let stored: DatabaseValue = row[name] ?? .null
        guard let value = T.fromDatabaseValue(stored) else {
            let found = stored.isNull ? "NULL" : "\(stored.storage)"
            throw SignalError.malformedRecord(
                table: table, key: key, column: name, reason: "expected \(T.self), found \(found.prefix(60))")
        }
        return value
    }

    /// The `SignalError` for an error of SQLite, GRDB or this store; `busyWait` is the time the
    /// failed operation took, in seconds (rounded to milliseconds in `SignalError.storeBusy`).
    static func signalError(_ error: any Error, path: String, operation: String, busyWait: Double = 0) -> SignalError {
        if let error = error as? SignalError { return error }
        if let frozen = error as? SharedMemoryFrozen { return .storeReadOnly(path: frozen.path, operation: operation) }
        if let cut = error as? SharedMemoryCut {
            return .storeCorrupt(
                path: cut.path, operation: operation,
                detail:
                    "the file was cut to \(cut.size) bytes while this process maps it, and it cannot be extended back (\(cut.reason)); every process using the store must be restarted"
            )
        }
        guard let error = error as? DatabaseError else {
            return .database(path: path, operation: operation, detail: "\(error)")
        }
        let detail = error.message ?? "\(error)"
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return .storeBusy(path: path, operation: operation, waitedSeconds: (busyWait * 1_000).rounded() / 1_000)
        case .SQLITE_READONLY:
            return .storeReadOnly(path: StoreFiles(path: path).firstUnwritable() ?? path, operation: operation)
        case .SQLITE_IOERR, .SQLITE_CANTOPEN:
            // SQLite says "disk I/O error" or "unable to open" for a file the OS refuses to write
            // (EPERM for an immutable file, EROFS, EACCES): that is a read-only store.
            if let unwritable = StoreFiles(path: path).firstUnwritable() {
                return .storeReadOnly(path: unwritable, operation: operation)
            }
            return error.resultCode == .SQLITE_CANTOPEN
                ? .storeUnavailable(path: path, reason: detail)
                : .database(path: path, operation: operation, detail: detail)
        case .SQLITE_FULL: return .storeFull(path: path, operation: operation)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return .storeCorrupt(path: path, operation: operation, detail: detail)
        case .SQLITE_PERM, .SQLITE_AUTH: return .storeUnavailable(path: path, reason: detail)
        default: return .database(path: path, operation: operation, detail: detail)
        }
    }

    /// Waits for other processes' transactions in short sleeps (SQLite's own busy handler sleeps
    /// 1 ms and longer at once, which would cost latency under contention), until `budget` has
    /// passed, measured from the first call of each wait.
    static func busyCallback(budget: Duration) -> Database.BusyCallback {
        let waitStarted = Locked(ContinuousClock.now)
        return { tries in
            let now = ContinuousClock.now
            if tries == 0 { waitStarted.withLock { $0 = now } }
            guard now - waitStarted.withLock({ $0 }) < budget else { return false }
            // 50 sleeps of 20 µs, 200 of 200 µs, then 2 ms each.
            usleep(tries < 50 ? 20 : tries < 250 ? 200 : 2_000)
            return true
        }
    }
}

/// The lock files of this process's runs, by run id.
private final class RunLocks: Sendable {
    private let locks = Locked<[String: RunLockFile]>([:])

    /// Keeps `file` as `runID`'s lock file; returns the one it replaces.
    @discardableResult
    func insert(_ file: RunLockFile, for runID: String) -> RunLockFile? {
        locks.withLock { $0.updateValue(file, forKey: runID) }
    }

    func file(for runID: String) -> RunLockFile? {
        locks.withLock { $0[runID] }
    }

    func remove(_ runID: String) -> RunLockFile? {
        locks.withLock { $0.removeValue(forKey: runID) }
    }

    /// Whether no run of this store object is active.
    var isEmpty: Bool { locks.withLock { $0.isEmpty } }
}

/// The delivery states and the run-tied lifetime as the statements write them.
private let pending = DeliveryState.pending.sqlLiteral
private let claimed = DeliveryState.claimed.sqlLiteral
private let dead = DeliveryState.dead.sqlLiteral
private let runTied = ConsumerLifetime.run.sqlLiteral

// MARK: Promises

extension SQLiteSignalStore: PromiseStore {
    public func insertPromise(_ promise: PromiseRecord, applying plan: StorePlan) async throws(SignalError) -> Bool {
        let history = options.completionHistory.seconds
        let counts = try await write("making promise '\(promise.id)'") { db -> [Int]? in
            try db.execute(
                sql: """
                    INSERT INTO promises (promise_id, value_type, component, limited, consumer_id, created_at, deadline,
                                          retention)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (promise_id) DO NOTHING
                    """,
                arguments: [
                    promise.id, promise.valueType, promise.component, promise.storedLimited,
                    promise.fallbackConsumer?.rawValue, promise.createdAt.timeIntervalSince1970,
                    promise.deadline?.timeIntervalSince1970, promise.retention,
                ])
            guard db.changesCount == 1 else { return nil }
            return try Self.run(plan, db, history: history)
        }
        guard let counts else { return false }
        if plan.wakeUp(counts: counts) != nil { WakeFile.notify(wakePath) }
        return true
    }

    public func promise(_ id: String) async throws(SignalError) -> PromiseRecord? {
        try await read("reading promise '\(id)'") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM promises WHERE promise_id = ?", arguments: [id])
                .map(Self.promiseRecord)
        }
    }

    public func settlePromise(
        _ id: String, with settlement: PromiseSettlementRecord, ifValueTypeIn valueTypes: [String]?,
        thenPosting post: @escaping @Sendable (PromiseRecord) throws(SignalError) -> PromiseSettlementPost?
    ) async throws(SignalError) -> PromiseRecord? {
        let (record, settled, posted) = try await write("settling promise '\(id)'") {
            db -> (PromiseRecord?, Bool, PostResult?) in
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM promises WHERE promise_id = ?"), arguments: [id])
            guard let stored = try row.map(Self.promiseRecord) else { return (nil, false, nil) }
            let settled = stored.settled(by: settlement, ifValueTypeIn: valueTypes)
            if settled != nil {
                try db.cachedStatement(
                    sql: """
                        UPDATE promises SET settlement_key = ?, outcome = ?, body = ?, settled_at = ?, keep_until = ? + retention
                        WHERE promise_id = ?
                        """
                ).execute(arguments: [
                    settlement.key, settlement.outcome.rawValue, Data(settlement.body),
                    settlement.settledAt.timeIntervalSince1970, settlement.settledAt.timeIntervalSince1970, id,
                ])
            }
            let record = settled ?? stored
            let posted = try post(record).map { request in
                try Self.post(Posting(signalID: request.signalID, payload: request.payload, keepUntil: nil), in: db)
            }
            return (record, settled != nil, posted)
        }
        if PromiseRecord.wakeUp(settled: settled, record) != nil || (posted?.deliveries ?? 0) > 0 {
            WakeFile.notify(wakePath)
        }
        return record
    }

    public func promises(settled: Bool?) async throws(SignalError) -> [PromiseRecord] {
        try await read("listing promises") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM promises WHERE ?1 IS NULL OR (settled_at IS NOT NULL) = ?1
                    ORDER BY created_at, promise_id
                    """, arguments: [settled]
            ).map(Self.promiseRecord)
        }
    }

    public func removePromises(keptUntilBefore now: Date) async throws(SignalError) -> Int {
        try await write("removing promises kept until before \(now)") { db in
            try db.execute(sql: "DELETE FROM promises WHERE keep_until < ?", arguments: [now.timeIntervalSince1970])
            return db.changesCount
        }
    }

    private static func promiseRecord(_ row: Row) throws -> PromiseRecord {
        let id: String = try column(row, "promise_id", table: "promises", key: "?")
        func value<T: DatabaseValueConvertible>(_ name: String) throws -> T {
            try column(row, name, table: "promises", key: id)
        }
        func optional<T: DatabaseValueConvertible>(_ name: String) -> T? {
            T.fromDatabaseValue(row[name] as DatabaseValue)
        }
        return try PromiseRecord(
            stored: id, valueType: try value("value_type"), component: try value("component"),
            limited: try value("limited"), consumer: optional("consumer_id"), createdAt: try value("created_at"),
            deadline: optional("deadline"), retention: try value("retention"),
            settlementKey: optional("settlement_key"),
            outcome: optional("outcome"), body: optional("body"), settledAt: optional("settled_at"))
    }
}
