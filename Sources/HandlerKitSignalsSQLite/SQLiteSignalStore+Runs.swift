import Foundation
import GRDB
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalSQL

extension SQLiteSignalStore {
    // MARK: Runs

    @_spi(SignalStoreDriver)
    public func beginRun(
        _ runID: String, component: String, applying plan: StorePlan
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

    @_spi(SignalStoreDriver)
    public func endRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        _ = try await perform(plan.program, "ending run \(runID) of component '\(component)'")
        runLocks.remove(runID)?.release()
    }

    /// Closes the run's lock file (its lock is free for a taker; the file stays) and, when no other
    /// run of this store object is active, the database connection: SQLite in WAL mode holds a lock
    /// on the `-shm` file for as long as any connection is open, so closing it is the only way to
    /// hold no lock at all.
    @_spi(SignalStoreDriver)
    public func suspendRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int] {
        let counts = try await perform(plan.program, "suspending run \(runID) of component '\(component)'")
        runLocks.remove(runID)?.abandon()
        closeWhenIdle()
        return counts
    }

    /// Locks the run's lock file again (waiting, at most `Options.busyTimeout`, while a taker holds
    /// it), then, in one transaction, finds the run's record. Without it the run was taken over:
    /// the lock file made again is removed, and the connection closed when no other run is active.
    @_spi(SignalStoreDriver)
    public func resumeRun(
        _ runID: String, component: String, applying plan: StorePlan
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

    /// A run is gone when its lock file is free (or missing); the plan is applied while this process
    /// holds that lock, so two processes never take over the same run, and a run whose file was
    /// removed cannot make it again meanwhile. The taker must still be recorded, in the same
    /// transaction: a run that was itself taken over takes nothing over.
    @_spi(SignalStoreDriver)
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

    /// What every mark of a started attempt of run `runID` checks first: when the run's lock file is
    /// gone (its folder was removed), a change for the mark's transaction that makes and locks it
    /// again while the run's record is still there (without the record the run was taken over, and
    /// the mark fails); `nil` while the file is intact.
    func renewingLockFile(of runID: String) -> (@Sendable (Database) throws -> Void)? {
        guard let file = runLocks.file(for: runID), !file.isIntact else { return nil }
        return { db in
            guard try Self.isRecorded(runID, db) else { return }
            let renewed = try RunLockFile(runID: runID, directory: self.runsDirectory, maker: self.fileMaker)
            self.runLocks.insert(renewed, for: runID)?.abandon()
        }
    }

    /// Whether run `runID` is recorded (not ended, not taken over), in the caller's transaction.
    static func isRecorded(_ runID: String, _ db: Database) throws -> Bool {
        try run(StoreReads.isRecorded(runID).sql, db)
    }

    @_spi(SignalStoreDriver)
    public func perform<Result: Sendable>(_ program: StoreProgram<Result>) async throws(SignalError) -> Result {
        try await perform(program, program.purpose)
    }

    /// Runs `program` in one transaction, then wakes whom it names. A program that marks attempts of
    /// a run started first makes the run's lock file again when it is gone (`renewingLockFile(of:)`),
    /// as every mark does. When that fails (another process holds the file: it is testing whether
    /// the run is alive), the program runs without its marks when it has such a form (a completion
    /// stands, its next delivery left unmarked: undone, it would leave the delivery, whose handler
    /// returned, claimed by a run that goes on), and fails otherwise.
    private func perform<Result: Sendable>(
        _ program: StoreProgram<Result>, _ operation: @autoclosure () -> String
    ) async throws(SignalError) -> Result {
        let history = options.completionHistory.seconds
        let renew = program.marksStartsOf.flatMap { renewingLockFile(of: $0) }
        // A read first, when the program has one: when it would change nothing (a wake-up for another
        // component's post), no write lock is taken.
        let needed = program.precheck.map { precheck in
            (
                check: { @Sendable (db: Database) throws -> Bool in try Self.run(precheck.read.sql, db) },
                otherwise: (precheck.otherwise, WakeTarget?.none)
            )
        }
        let postBeforeCommit = program.isPost ? options.faultHook : nil
        let (result, wakeUp) = try await write(operation(), ifNeeded: needed) { db in
            var program = program
            do {
                try renew?(db)
            } catch SignalError.runLock(let path, let reason) {
                // Thrown before the renewal changed anything.
                guard let unmarked = program.unmarked else { throw SignalError.runLock(path: path, reason: reason) }
                program = unmarked()
            }
            let answer = try Self.run(program, db, history: history)
            postBeforeCommit?(.postBeforeCommit)
            return answer
        }
        if wakeUp != nil { WakeFile.notify(wakePath) }
        return result
    }

    /// Runs `program` in the caller's transaction (the steps' statements are the SQL stores' own,
    /// `StepStatements`); returns its answer and whom to wake after the commit.
    static func run<Result: Sendable>(
        _ program: StoreProgram<Result>, _ db: Database, history: Double
    ) throws -> (Result, WakeTarget?) {
        try program.run(
            step: { step in
                try StepStatements.statements(for: step, history: history).reduce(0) { count, statement in
                    count + (try execute(statement, db))
                }
            },
            rows: { statement in try rows(of: statement, db) }, change: HotPathStatements.statement(for:))
    }

    /// Makes the steps of `plan` in the caller's transaction; returns the rows each changed.
    static func run(_ plan: StorePlan, _ db: Database, history: Double) throws -> [Int] {
        try run(plan.program, db, history: history).0
    }

    /// Runs `statement`; returns what counts of it (`SQLStatement.Answer`).
    /// Prepared once per connection, as every statement on the paths each signal takes, unless its
    /// text varies from call to call.
    private static func execute(_ statement: SQLStatement, _ db: Database) throws -> Int {
        let sql = SQLDialect.sqlite.render(statement)
        let prepared = statement.textVaries ? try db.makeStatement(sql: sql) : try db.cachedStatement(sql: sql)
        let arguments = statement.databaseArguments
        switch statement.answer {
        case .changes:
            try prepared.execute(arguments: arguments)
            return db.changesCount
        case .ids:
            return try Int64.fetchAll(prepared, arguments: arguments).count
        case .nothing:
            try prepared.execute(arguments: arguments)
            return 0
        }
    }
}

/// The lock files of this process's runs, by run id.
final class RunLocks: Sendable {
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
