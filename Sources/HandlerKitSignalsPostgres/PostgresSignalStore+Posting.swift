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

    /// Makes `postings` at `now` in one transaction, each in the statement of ``post(_:now:)``, with
    /// the effects of the core's bulk post (`StoreProgram.posts(_:now:)`), which the differential test
    /// compares; its answer is recorded as that program records it.
    func post(_ postings: [Posting], now: Double) async throws(SignalError) -> [PostResult] {
        let statements = postings.map { postStatement($0, now: now, id: nil) }
        let hook = options.faultHook
        let logger = options.logger
        return try await transactionOnce(
            "posting \(postings.count) signals", answer: RecordedAnswer(.posts(postings))
        ) { connection in
            var results: [PostResult] = []
            for (posting, statement) in zip(postings, statements) {
                for try await (revision, deliveries, _) in try await connection.execute(statement, logger: logger) {
                    results.append(posting.result(revision: revision, deliveries: deliveries))
                }
            }
            hook?(.postBeforeCommit)
            return results
        }
    }

    /// The statement that makes `posting` at `now` (``post(_:now:)``), recorded under post id `id`
    /// when given.
    func postStatement(_ posting: Posting, now: Double, id: String?) -> PostgresStatements.Post {
        PostgresStatements.Post(
            signalID: posting.signalID, keepUntil: posting.keepUntil,
            storedPayload: ByteBuffer(bytes: posting.keptPayload), now: now,
            payload: ByteBuffer(bytes: posting.payload), channel: channel, postID: id,
            due: posting.due(now: now), notBefore: posting.notBefore)
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
            if let posting = decided.post {
                for try await _ in try await connection.execute(
                    self.postStatement(posting, now: now, id: nil), logger: logger)
                {
                }
            }
            if decided.wakeUp != nil { try await self.notify(connection) }
            return decided.answer
        }
    }
}
#endif
