import Foundation
import GRDB
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging
import SignalSQL

/// The embedded signal store: one SQLite database file that every process of the machine opens
/// (through GRDB), in WAL mode. Every write is one `BEGIN IMMEDIATE` transaction; a process that
/// finds the database locked waits up to `Options.busyTimeout` and then throws `SignalError.storeBusy`
/// without having written anything, so a busy database never loses or doubles a signal. Transactions
/// run on the connection's own queue, and a task that waits for one (or for a locked database) waits
/// suspended: the store never holds a thread of Swift's cooperative pool.
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
        /// How long a write waits for other processes' transactions before `SignalError.storeBusy`
        /// (suspended: the waiting task tries again after short pauses).
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
    /// The database connection (see `SQLiteConnectionState`): closed while every run of this store
    /// object is suspended, opened again by the next operation.
    let database: Locked<SQLiteConnectionState>
    let sharedMemory: SharedMemoryGuard
    private let runLocks = RunLocks()
    /// Whether the store was opened for reading only (``init(inspecting:options:)``).
    let readsOnly: Bool

    /// Opens (creating and migrating when needed) the store at `path`.
    ///
    /// A signal store is marked with its own `PRAGMA application_id`; a database that holds anything
    /// else is refused before anything is written to it.
    ///
    /// Processes opening a new store at the same time make it once; none of them fails for the others.
    /// Opening never waits: when other processes keep the database busy at that moment, the store's
    /// first operation opens it, waiting for them (suspended) up to `Options.busyTimeout`, and throws
    /// `SignalError.storeBusy` (for the operation "opening the store") after that.
    ///
    /// - Throws: `SignalError.notASignalStore` for a database that is not a signal store (left
    ///   unchanged), `.newerSchema` for a signal store of a newer version (left unchanged),
    ///   `.storeLost` for a store whose database file was emptied or deleted, `.storeCorrupt` for a
    ///   file that is not an SQLite database or is damaged (cut short, pages missing), for a `-wal`
    ///   file lost with commits not yet copied into the database, and for a `-wal` or `-shm` file that
    ///   is not a regular file, `.storeReadOnly`, `.storeUnavailable` naming a file that cannot be
    ///   opened or read.
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
        database = Locked(try Self.firstConnection(path: path, options: options, readsOnly: readsOnly))
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
        if let queue = database.withLock({ $0.queue }) { keepOpenWhenFrozen(queue) }
    }

    /// Closing the connection writes its `-shm` file, which kills the process once that file is
    /// immutable (see `SharedMemoryGuard`): the connection is then left open until the process exits.
    private func keepOpenWhenFrozen(_ queue: DatabaseQueue) {
        if sharedMemory.isFrozen { _ = Unmanaged.passRetained(queue) }
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
        let lock = try await RunLockFile.retake(
            runID: runID, directory: runsDirectory, maker: fileMaker, patience: options.busyTimeout)
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
        let queue = database.withLock { state -> DatabaseQueue? in
            guard runLocks.isEmpty, let queue = state.queue else { return nil }
            state = .closed
            return queue
        }
        guard let queue else { return }
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
        try await run(StoreReads.runs(of: component))
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
        try run(StoreReads.isRecorded(runID), db)
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

    /// Makes the steps of `plan` in the caller's transaction (their statements are the SQL stores'
    /// own, `StepStatements`); returns the rows each changed.
    private static func run(_ plan: StorePlan, _ db: Database, history: Double) throws -> [Int] {
        try plan.steps.map { step in
            try StepStatements.statements(for: step, history: history).reduce(0) { count, statement in
                count + (try execute(statement, db))
            }
        }
    }

    /// Runs `statement`; returns what counts of it (`SQLStatement.Answer`).
    private static func execute(_ statement: SQLStatement, _ db: Database) throws -> Int {
        let sql = SQLDialect.sqlite.render(statement)
        let arguments = statement.databaseArguments
        switch statement.answer {
        case .changes:
            try db.execute(sql: sql, arguments: arguments)
            return db.changesCount
        case .ids:
            return try Int64.fetchAll(db, sql: sql, arguments: arguments).count
        case .nothing:
            try db.execute(sql: sql, arguments: arguments)
            return 0
        }
    }

    // MARK: Consumers

    public func consumers(of component: String?) async throws(SignalError) -> [ConsumerRecord] {
        try await run(StoreReads.consumers(of: component))
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
        try await run(StoreReads.deadDeliveries(of: component))
    }

    public func completions(of key: DeliveryKey) async throws(SignalError) -> [CompletionRecord] {
        try await run(StoreReads.completions(of: key))
    }

    public func statistics() async throws(SignalError) -> SignalStoreStatistics {
        try await run(StoreReads.statistics)
    }

    public func makeWakeListener() throws(SignalError) -> any SignalWakeListener {
        try WakeFileListener(path: wakePath, maker: fileMaker, logger: options.logger)
    }

    // MARK: Transactions and errors

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

/// The delivery states as the statements write them.
private let pending = DeliveryState.pending.sqlLiteral
private let claimed = DeliveryState.claimed.sqlLiteral
private let dead = DeliveryState.dead.sqlLiteral

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
