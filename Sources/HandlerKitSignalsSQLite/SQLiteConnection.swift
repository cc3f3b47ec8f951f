import Dispatch
import Foundation
import GRDB
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalSQL

/// The store's database connection, and how its transactions run without holding a thread of Swift's
/// cooperative pool.
///
/// A transaction runs on the connection's own serial queue (GRDB's `asyncWriteWithoutTransaction`),
/// and the calling task waits for it suspended. While another process holds the write lock, SQLite
/// answers at once (`SQLITE_BUSY`, no busy handler sleeps in a thread) and the task tries again after
/// a pause, suspended too, until `Options.busyTimeout` has passed. Opening the connection waits the
/// same way. A task's cancellation does not cut a transaction short: what the center asked the store
/// to record is recorded or not, never half.
enum SQLiteConnectionState: Sendable {
    /// Not open: the database was busy when the store was made, or a suspension closed it.
    case closed
    /// Being opened by one task, which the others wait for.
    case opening(Task<DatabaseQueue, any Error>)
    case open(DatabaseQueue)

    var queue: DatabaseQueue? {
        if case .open(let queue) = self { queue } else { nil }
    }
}

extension SQLiteSignalStore {
    /// The first pause after `SQLITE_BUSY`; each next one is twice as long, up to `longestBusyPause`.
    static let firstBusyPause = Duration.microseconds(50)
    static let longestBusyPause = Duration.milliseconds(2)

    /// The database connection, opened when it is not (the first opening found the database busy,
    /// or a suspension closed it). Tasks asking at the same time wait for one opening.
    func connection() async throws(SignalError) -> DatabaseQueue {
        enum Next {
            case ready(DatabaseQueue)
            case wait(Task<DatabaseQueue, any Error>)
        }
        let next = database.withLock { state -> Next in
            switch state {
            case .open(let queue): return .ready(queue)
            case .opening(let task): return .wait(task)
            case .closed:
                let task = Task { try await self.open() }
                state = .opening(task)
                return .wait(task)
            }
        }
        switch next {
        case .ready(let queue): return queue
        case .wait(let task):
            do {
                let queue = try await task.value
                database.withLock { state in
                    if case .opening = state { state = .open(queue) }
                }
                return queue
            } catch {
                database.withLock { state in
                    if case .opening = state { state = .closed }
                }
                throw Self.signalError(error, path: path, operation: "opening the store")
            }
        }
    }

    /// Opens the connection off the cooperative pool, trying again after pauses while other
    /// processes keep the database busy, until `Options.busyTimeout` has passed.
    private func open() async throws(SignalError) -> DatabaseQueue {
        let (path, options, readsOnly) = (path, options, readsOnly)
        let started = ContinuousClock.now
        var pause = Duration.microseconds(200)
        while true {
            do {
                let queue = try await Self.offThePool { () throws -> DatabaseQueue in
                    readsOnly
                        ? try Self.openForReading(path: path, options: options)
                        : try Self.reopenDatabase(path: path, options: options)
                }
                // The last connection to close may have removed the `-shm` file, and this one made it again.
                sharedMemory.refresh()
                return queue
            } catch {
                let waited = ContinuousClock.now - started
                guard Self.isTransient(error), waited < options.busyTimeout else {
                    throw Self.openingError(
                        error, files: StoreFiles(path: path), operation: "opening the store", busyWait: waited.seconds)
                }
                try? await Task.sleep(for: min(pause, options.busyTimeout - waited))
                pause = min(pause * 2, .milliseconds(20))
            }
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction on the connection's queue.
    @discardableResult
    func write<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(SignalError) -> T {
        try await transaction(operation(), beginning: "BEGIN IMMEDIATE TRANSACTION", body)
    }

    /// Runs `body` in a read transaction (`BEGIN DEFERRED`, which stays a read one while it only
    /// reads) on the connection's queue.
    func read<T: Sendable>(
        _ operation: @autoclosure () -> String, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(SignalError) -> T {
        try await transaction(operation(), beginning: "BEGIN DEFERRED TRANSACTION", body)
    }

    /// Runs `needed.check` (when given) in a read transaction, then, when it holds, `body` in a
    /// `BEGIN IMMEDIATE` transaction (answering `needed.otherwise` when it does not), both in one turn
    /// of the connection's queue: a write that is often not needed costs the calling task one wait,
    /// not two.
    func write<T: Sendable>(
        _ operation: @autoclosure () -> String,
        ifNeeded needed: (check: @Sendable (Database) throws -> Bool, otherwise: T)?,
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(SignalError) -> T {
        try await onQueue(operation()) { db in
            if let needed, try !Self.inTransaction(db, beginning: "BEGIN DEFERRED TRANSACTION", needed.check) {
                return needed.otherwise
            }
            return try Self.inTransaction(db, beginning: "BEGIN IMMEDIATE TRANSACTION", body)
        }
    }

    /// Runs `read`'s statement (one of the core's reads) in a read transaction and makes its value.
    func run<Value: Sendable>(_ read: SQLRead<Value>) async throws(SignalError) -> Value {
        let rows = try await self.read(read.purpose) { db in try Self.rows(of: read.statement, db) }
        return try read.decode(rows)
    }

    /// Runs `read`'s statement in the caller's transaction and makes its value.
    static func run<Value: Sendable>(_ read: SQLRead<Value>, _ db: Database) throws -> Value {
        try read.decode(try rows(of: read.statement, db))
    }

    /// The rows of `statement`, prepared once per connection: the reads' texts are few, since their
    /// values are bound.
    static func rows(of statement: SQLStatement, _ db: Database) throws -> [SQLRow] {
        try Row.fetchAll(db, cached: statement).map { row in
            SQLRow(names: Array(row.columnNames), values: row.databaseValues.map(SQLValue.init))
        }
    }

    /// Runs `body` between `begin` and `COMMIT` on the connection's queue (`onQueue`).
    private func transaction<T: Sendable>(
        _ operation: @autoclosure () -> String, beginning begin: String,
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(SignalError) -> T {
        try await onQueue(operation()) { db in try Self.inTransaction(db, beginning: begin, body) }
    }

    /// Runs `work` (whole transactions) on the connection's queue; while the database is busy, tries
    /// again after a pause (the task suspended), until `Options.busyTimeout`.
    private func onQueue<T: Sendable>(
        _ operation: @autoclosure () -> String, _ work: @escaping @Sendable (Database) throws -> T
    ) async throws(SignalError) -> T {
        let started = ContinuousClock.now
        var pause = Self.firstBusyPause
        while true {
            do {
                try sharedMemory.check()
                let queue = try await connection()
                return try await withCheckedThrowingContinuation { continuation in
                    queue.asyncWriteWithoutTransaction { db in
                        continuation.resume(with: Result { try work(db) })
                    }
                }
            } catch {
                let waited = ContinuousClock.now - started
                guard Self.isBusy(error), waited < options.busyTimeout else {
                    throw Self.signalError(error, path: path, operation: operation(), busyWait: waited.seconds)
                }
                try? await Task.sleep(for: min(pause, options.busyTimeout - waited))
                pause = min(pause * 2, Self.longestBusyPause)
            }
        }
    }

    /// Runs `body` between `begin` and `COMMIT`, rolled back when it throws. Both statements are
    /// prepared once per connection: GRDB's `inTransaction` and `read` prepare theirs (and, for a
    /// read, two `PRAGMA query_only` statements) at every call.
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

    /// Whether a transaction failed only because another connection held a lock it needed.
    static func isBusy(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }

    /// Whether opening failed only for what other processes were doing at that moment: SQLITE_BUSY
    /// (raw, or as the `SignalError.storeBusy` of opening for reading), or a `-wal` file that GRDB saw
    /// and then could not find (the last connection of another process removes it on closing).
    static func isTransient(_ error: any Error) -> Bool {
        if case .storeBusy? = error as? SignalError { return true }
        if let error = error as? DatabaseError { return error.resultCode == .SQLITE_BUSY }
        if let error = error as? CocoaError { return error.code == .fileReadNoSuchFile }
        return false
    }

    /// Runs `body` on a serial queue of its own and waits for it suspended: opening a connection
    /// reads and may migrate the database, which must not hold a thread of the cooperative pool.
    static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            openingQueue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    private static let openingQueue = DispatchQueue(label: "HandlerKitSignals.SQLite.opening")
}

extension SQLStatement {
    /// The statement's arguments as GRDB binds them.
    var databaseArguments: StatementArguments {
        StatementArguments(
            arguments.map { value -> DatabaseValue in
                switch value {
                case .null: .null
                case .integer(let value): value.databaseValue
                case .real(let value): value.databaseValue
                case .text(let value): value.databaseValue
                case .blob(let value): Data(value).databaseValue
                }
            })
    }
}

extension SQLValue {
    /// A value SQLite returned.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let value): self = .integer(value)
        case .double(let value): self = .real(value)
        case .string(let value): self = .text(value)
        case .blob(let value): self = .blob([UInt8](value))
        }
    }
}

extension Database {
    /// Runs `statement` (the SQL stores' own), prepared once per connection.
    func execute(cached statement: SQLStatement) throws {
        try cachedStatement(sql: SQLDialect.sqlite.render(statement)).execute(arguments: statement.databaseArguments)
    }
}

extension Row {
    /// The rows `statement` returns, prepared once per connection.
    static func fetchAll(_ db: Database, cached statement: SQLStatement) throws -> [Row] {
        try fetchAll(
            db.cachedStatement(sql: SQLDialect.sqlite.render(statement)), arguments: statement.databaseArguments)
    }

    /// The first row `statement` returns, prepared once per connection.
    static func fetchOne(_ db: Database, cached statement: SQLStatement) throws -> Row? {
        try fetchOne(
            db.cachedStatement(sql: SQLDialect.sqlite.render(statement)), arguments: statement.databaseArguments)
    }
}

extension DatabaseValueConvertible {
    /// The first column of the first row `statement` returns, prepared once per connection.
    static func fetchOne(_ db: Database, cached statement: SQLStatement) throws -> Self? {
        try fetchOne(
            db.cachedStatement(sql: SQLDialect.sqlite.render(statement)), arguments: statement.databaseArguments)
    }
}
