import Foundation
import GRDB
@_spi(SignalStoreDriver) import HandlerKitSignals

extension SQLiteSignalStore {
    /// Posts `signal` inside the application's own transaction on `db`, so that the post is stored if
    /// and only if that transaction commits: write a row and post its signal in one transaction, and
    /// neither happens without the other.
    ///
    /// ```swift
    /// try await appDatabase.write { db in
    ///     try db.execute(sql: "INSERT INTO photos (id) VALUES (?)", arguments: [photoID])
    ///     try store.post("thumbnails.requested", payload: ["photoID": photoID], in: db)
    /// }
    /// ```
    ///
    /// The application keeps its tables in the store's database file: it opens the file with GRDB
    /// (a `DatabasePool` or `DatabaseQueue` of its own) after the store made it, and names its tables
    /// apart from the store's (`runs`, `consumers`, `signals`, `deliveries`, `delivery_bodies`,
    /// `completions`, `promises`, `operations`); the file's `user_version` and `application_id` are the
    /// store's. SQLite commits one file's changes atomically; a database attached to another (in WAL
    /// mode) would not be, so `db` must be a connection to the store's own file.
    ///
    /// The post runs in a savepoint of `db`'s transaction: when it throws, the savepoint is rolled
    /// back and the transaction can go on. The consumers' centers are woken after the transaction
    /// commits, never before, and not at all when it rolls back. A post behaves as
    /// `SignalCenter.post(_:payload:ifUnconsumed:notBefore:idempotencyKey:orderingKey:debounce:)` and throws what it throws before
    /// storing anything.
    ///
    /// - Throws: `SignalError.database` when `db` is not in a transaction, or is not a connection to
    ///   this store's file at its current schema version (nothing was posted); the errors of
    ///   `SignalCenter.post(_:payload:ifUnconsumed:notBefore:idempotencyKey:orderingKey:debounce:)`.
    @discardableResult
    public func post(
        _ signal: SignalID, payload: SignalPayload = SignalPayload(), ifUnconsumed: UnconsumedPolicy = .report,
        notBefore: Date? = nil, in db: Database
    ) throws(SignalError) -> PostResult {
        let results = try post(
            [SignalPost(signal, payload: payload, ifUnconsumed: ifUnconsumed, notBefore: notBefore)], in: db)
        guard let result = results.first else {
            throw .database(path: path, operation: "posting signal '\(signal)'", detail: "the post made no result")
        }
        return result
    }

    /// Posts `posts` in their order inside the application's own transaction on `db`, as
    /// ``post(_:payload:ifUnconsumed:notBefore:in:)`` posts one: all are stored if and only if the
    /// transaction commits.
    @discardableResult
    public func post(_ posts: [SignalPost], in db: Database) throws(SignalError) -> [PostResult] {
        let operation = "posting \(posts.count) signal\(posts.count == 1 ? "" : "s") in the application's transaction"
        if readsOnly { throw .storeReadOnly(path: path, operation: operation) }
        try checkApplicationDatabase(db, operation: operation)
        let (history, wakePath, path) = (options.completionHistory.seconds, wakePath, path)
        return try SignalCenter.postSynchronously(posts) { program throws(SignalError) in
            do {
                var answer: ([PostResult], WakeTarget?)?
                try db.inSavepoint {
                    answer = try Self.run(program, db, history: history)
                    return .commit
                }
                guard let (results, wakeUp) = answer else { return [] }
                if wakeUp != nil { db.afterNextTransaction { _ in WakeFile.notify(wakePath) } }
                return results
            } catch {
                throw Self.signalError(error, path: path, operation: program.purpose)
            }
        }
    }

    /// Throws unless `db` is in a transaction, on this store's file, at the schema version this code
    /// writes.
    private func checkApplicationDatabase(_ db: Database, operation: String) throws(SignalError) {
        func refuse(_ detail: String) -> SignalError { .database(path: path, operation: operation, detail: detail) }
        guard db.isInsideTransaction else {
            throw refuse(
                "the connection is not in a transaction: post(_:in:) posts inside the application's transaction; call it inside DatabaseWriter.write or DatabaseWriter.inTransaction"
            )
        }
        do {
            let file = try String.fetchOne(db, sql: "SELECT file FROM pragma_database_list WHERE name = 'main'") ?? ""
            let mine = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            guard URL(fileURLWithPath: file).resolvingSymlinksInPath().path == mine else {
                throw refuse(
                    "the connection is to \(file.isEmpty ? "a database in memory" : file), not to the store's file: the application's tables must be in the store's database, so that one commit writes both"
                )
            }
            let application = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            guard application == SQLiteSchema.applicationID, version == SQLiteSchema.version else {
                throw refuse(
                    "the store's file is at schema version \(version) (application id \(application)); this code writes version \(SQLiteSchema.version): open the store (SQLiteSignalStore) and start a center first, so that it migrates the file"
                )
            }
        } catch let error as SignalError {
            throw error
        } catch {
            throw Self.signalError(error, path: path, operation: operation)
        }
    }
}
