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
    let runLocks = RunLocks()
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
    func keepOpenWhenFrozen(_ queue: DatabaseQueue) {
        if sharedMemory.isFrozen { _ = Unmanaged.passRetained(queue) }
    }

    /// The folder of run lock files.
    var runsDirectory: String { path + ".runs" }
    /// The file other processes are woken through.
    var wakePath: String { path + ".wake" }

    // MARK: Reads

    /// Runs the read's statement in a read transaction, prepared once per connection.
    @_spi(SignalStoreDriver)
    public func read<Value: Sendable>(_ read: StoreRead<Value>) async throws(SignalError) -> Value {
        try await run(read.sql)
    }

    @_spi(SignalStoreDriver)
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
