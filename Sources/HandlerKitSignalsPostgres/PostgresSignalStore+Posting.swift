// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging
import NIOCore
import PostgresNIO

extension PostgresSignalStore {
    // MARK: Posting

    /// Makes `posting` at `now` in one statement (`PostgresStatements.Post`) with the effects of the
    /// core's post program (`StoreProgram.post(_:now:)`), which the differential test compares.
    func post(_ posting: Posting, now: Double) async throws(SignalError) -> PostResult {
        let signalID = posting.signalID
        // The post's id is recorded with its answer (as `transactionOnce` records a write's, in the
        // post's one statement): a try after a lost connection finds out whether the lost one was
        // applied (then returns its answer) instead of posting again.
        let postID = UUID().uuidString
        let statement = postStatement(posting, now: now, id: postID)
        let hook = options.faultHook
        let (revision, deliveries) = try await connections.run("posting signal '\(signalID)'") { connection, isRetry in
            if isRetry {
                try await connection.query("BEGIN", logger: self.options.logger)
                let purpose = "posting signal '\(signalID)'"
                if let numbers = try await self.recordedAnswer(of: postID, purpose, .post, connection) {
                    try await connection.query("COMMIT", logger: self.options.logger)
                    return (numbers[0], numbers[1])
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

    /// Makes `postings` at `now` in one transaction, with the effects of the core's bulk post
    /// `program` (`StoreProgram.posts(_:now:keys:keepUntil:)`) and recorded as it records its answer:
    /// one post in the statement of ``post(_:now:)`` (when it fits one); others with the program's stages, once their
    /// signals' records are locked against other posts (``lockSignals(_:_:)``).
    func post<Result: Sendable>(
        _ postings: [Posting], now: Double, answer: @escaping @Sendable ([PostResult]) -> Result,
        program: StoreProgram<Result>
    ) async throws(SignalError) -> Result {
        let hook = options.faultHook
        let body: @Sendable (PostgresConnection) async throws -> Result = { connection in
            let result: Result
            if postings.count == 1, postings[0].fitsOneStatement {
                result = answer([try await self.post(postings[0], now: now, connection)])
            } else {
                try await self.lockSignals(postings, connection)
                result = try await self.run(program, connection)
            }
            hook?(.postBeforeCommit)
            return result
        }
        // The core's bulk post records its answer; a program that did not would be tried again as it is.
        guard let record = program.record else { return try await connections.transaction(program.purpose, body) }
        return try await transactionOnce(program.purpose, answer: RecordedAnswer(record), body)
    }

    /// Makes `posting` at `now` in the statement of ``post(_:now:)``, in the caller's transaction.
    func post(_ posting: Posting, now: Double, _ connection: PostgresConnection) async throws -> PostResult {
        var result = posting.result(revision: 0, deliveries: 0)
        for try await (revision, deliveries, _) in try await connection.execute(
            postStatement(posting, now: now, id: nil), logger: options.logger)
        {
            result = posting.result(revision: revision, deliveries: deliveries)
        }
        return result
    }

    /// Locks the records of the signals `postings` post until the transaction ends
    /// (`PostgresStatements.lockSignals`): another post of one of them waits for the commit, and
    /// the revisions the bulk post reads next are the last ones committed.
    func lockSignals(_ postings: [Posting], _ connection: PostgresConnection) async throws {
        var binds = PostgresBindings(capacity: 1)
        binds.append(Set(postings.map(\.signalID)).sorted())
        try await connection.query(
            PostgresQuery(unsafeSQL: PostgresStatements.lockSignals, binds: binds), logger: options.logger)
    }

    /// The statement that makes `posting` at `now` (``post(_:now:)``), recorded under post id `id`
    /// when given.
    func postStatement(_ posting: Posting, now: Double, id: String?) -> PostgresStatements.Post {
        PostgresStatements.Post(
            signalID: posting.signalID, keepUntil: posting.keepUntil,
            storedPayload: ByteBuffer(bytes: posting.keptPayload), now: now,
            payload: ByteBuffer(bytes: posting.payload), channel: channel, postID: id,
            due: posting.due(now: now), notBefore: posting.notBefore, orderKey: posting.orderKey)
    }

    /// Settles promise `id` at `now` in one transaction with the core's decision
    /// (`StoreProgram.settle`): the promise read with its row locked against other settlers, the
    /// decision's steps, its post in the statement of ``post(_:now:)``, its wake-up. Three round trips
    /// fewer than the program's stages; a try after a lost connection runs it again, as the program may.
    func settle(
        _ id: String, now: Double, decide: @escaping @Sendable (PromiseRecord?) -> PromiseSettling
    ) async throws(SignalError) -> Result<PromiseRecord?, SignalError> {
        let read = StoreReads.promise(id).sql
        // The core's read of one promise by its key, its row locked until the commit.
        let locked = SQLStatement(read.statement.sql + " FOR UPDATE", read.statement.arguments, answer: .nothing)
        let logger = options.logger
        return try await connections.transaction("settling promise '\(id)'") { connection in
            let decided = decide(try read.decode(try await Self.rows(of: locked, connection, logger: logger)))
            for step in decided.steps { _ = try await self.make(step, connection) }
            if let posting = decided.post { _ = try await self.post(posting, now: now, connection) }
            if decided.wakeUp != nil { try await self.notify(connection) }
            return decided.answer
        }
    }
}
#endif
