// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging
import NIOCore
import PostgresNIO
import SignalSQL

extension PostgresSignalStore {
    // MARK: Posting

    /// Makes `posting` at `now` in one statement (`PostgresStatements.Post`) with the effects of the
    /// core's post program (`StoreProgram.post(_:now:)`), which the differential test compares.
    func post(_ posting: Posting, now: Double) async throws(SignalError) -> PostResult {
        let signalID = posting.signalID
        let statement = PostgresStatements.Post(
            signalID: signalID, keepUntil: posting.keepUntil, storedPayload: ByteBuffer(bytes: posting.keptPayload),
            now: now, payload: ByteBuffer(bytes: posting.payload), channel: channel, postID: UUID().uuidString)
        // The post's id, made with the statement, is recorded with its answer (as `transactionOnce`
        // records a write's, in the post's one statement): a try after a lost connection finds out
        // whether the lost one was applied (then returns its answer) instead of posting again.
        let postID = statement.postID
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
}
#endif
