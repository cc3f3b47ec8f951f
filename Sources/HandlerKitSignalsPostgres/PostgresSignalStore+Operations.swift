// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging
import PostgresNIO
import SignalSQL

/// How a write's answer is kept with its operation id (`PostgresSignalStore.transactionOnce`), and
/// made again from what was kept.
struct RecordedAnswer<Value: Sendable>: Sendable {
    /// The text kept in `operations.answer`.
    let encode: @Sendable (Value) -> String
    /// The answer from the kept text, read in the retry's transaction; `nil` when the text is not
    /// one this answer writes.
    let decode: @Sendable (String, PostgresConnection) async throws -> Value?
}

extension RecordedAnswer {
    /// The core's way of keeping an answer (a `StoreProgram`'s).
    init(_ text: RecordedText<Value>) {
        self.init(encode: text.encode, decode: { recorded, _ in text.decode(recorded) })
    }
}

extension RecordedAnswer where Value == [Int] {
    /// Numbers, such as the rows each step of a plan changed: kept as decimals separated by spaces.
    static var numbers: Self { Self(.numbers) }

    /// A post's revision and count of deliveries, as its statement keeps them (`PostgresStatements.Post`).
    static var post: Self {
        Self(
            encode: numbers.encode,
            decode: { text, connection in
                try await numbers.decode(text, connection).flatMap { $0.count == 2 ? $0 : nil }
            })
    }
}

extension RecordedAnswer where Value == [Int]? {
    /// Numbers or none: kept as `numbers` keeps them, or `none`.
    static var optionalNumbers: Self {
        Self(
            encode: { $0.map(RecordedAnswer<[Int]>.numbers.encode) ?? "none" },
            decode: { text, connection in
                text == "none" ? .some(nil) : try await RecordedAnswer<[Int]>.numbers.decode(text, connection)
            })
    }
}

extension RecordedAnswer where Value == Void {
    static var none: Self { Self(encode: { _ in "" }, decode: { text, _ in text.isEmpty ? () : nil }) }
}

extension PostgresSignalStore {
    // MARK: Writes made once

    /// Runs `body` in one transaction on a pooled connection, and records in the same transaction a
    /// new operation id with `answer`'s text of what `body` returned. A try after a lost connection
    /// first takes the id, waiting while the lost try's transaction is still open on the server;
    /// when the lost try committed, it returns the recorded answer instead of applying the write
    /// again. Every write of the store that a try after a lost connection may repeat is made so (a
    /// post records its id in its own statement, `post`); the ids are kept for `operationMemory`.
    ///
    /// - Throws: what `connections.run` throws, and `SignalError.storeCorrupt` when a recorded answer
    ///   cannot be read.
    func transactionOnce<Value: Sendable>(
        _ purpose: String, within budget: Duration? = nil, answer: RecordedAnswer<Value>,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Value
    ) async throws(SignalError) -> Value {
        let id = UUID().uuidString
        return try await connections.run(purpose, within: budget) { connection, isRetry in
            try await connection.query("BEGIN", logger: self.options.logger)
            if isRetry, let value = try await self.recordedAnswer(of: id, purpose, answer, connection) {
                try await connection.query("COMMIT", logger: self.options.logger)
                return value
            }
            let value = try await body(connection)
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: PostgresStatements.recordOperation,
                    binds: [.text(id), .text(answer.encode(value)), .real(Date().timeIntervalSince1970)].bindings),
                logger: self.options.logger)
            try await connection.query("COMMIT", logger: self.options.logger)
            return value
        }
    }

    /// For a try after a lost connection, in its transaction: takes the operation id `id` of the
    /// write `purpose` names, waiting while an earlier try's transaction is still open on the server.
    /// The answer an earlier try recorded when it committed, made again with `answer`; `nil` when
    /// none did (the id is now this try's).
    ///
    /// - Throws: `SignalError.storeCorrupt` when the recorded text is not one `answer` writes.
    func recordedAnswer<Value: Sendable>(
        of id: String, _ purpose: String, _ answer: RecordedAnswer<Value>, _ connection: PostgresConnection
    ) async throws -> Value? {
        guard let recorded = try await recordedText(of: id, purpose, connection) else { return nil }
        guard let value = try await answer.decode(recorded, connection) else {
            throw SignalError.storeCorrupt(
                path: location, operation: purpose,
                detail:
                    "the answer '\(recorded)' recorded for operation \(id) in the table operations cannot be read: another program changed the table; the operation was applied"
            )
        }
        return value
    }

    /// The text of ``recordedAnswer(of:_:_:_:)``.
    private func recordedText(
        of id: String, _ purpose: String, _ connection: PostgresConnection
    ) async throws -> String? {
        let taken = try await count(
            connection.query(
                PostgresQuery(
                    unsafeSQL: PostgresStatements.counting(PostgresStatements.takeOperation),
                    binds: [.text(id), .real(Date().timeIntervalSince1970)].bindings),
                logger: options.logger))
        guard taken == 0 else { return nil }
        let answer = try await strings(
            connection.query(
                PostgresQuery(unsafeSQL: PostgresStatements.operationAnswer, binds: [.text(id)].bindings),
                logger: options.logger)
        ).first
        options.logger.info(
            "a write whose connection was lost had been applied: not applied again",
            metadata: ["handlerkit.operation": .string(purpose), "handlerkit.write_id": .string(id)])
        return answer
    }

    /// How long a write's id and answer are kept (for a try after a lost connection, which comes
    /// within `reconnectFor`): twice that, at least ten minutes.
    var operationMemory: Double { max(2 * options.reconnectFor.seconds, 600) }

    /// Removes the ids of writes older than `operationMemory` (at each run's start and liveness check).
    func forgetOldOperations(_ connection: PostgresConnection) async throws {
        try await connection.query(
            PostgresQuery(
                unsafeSQL: PostgresStatements.forgetOperations,
                binds: [.real(Date().timeIntervalSince1970 - operationMemory)].bindings),
            logger: options.logger)
    }
}
#endif
