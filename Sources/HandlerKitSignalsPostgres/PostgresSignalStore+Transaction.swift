// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import PostgresNIO

extension PostgresSignalStore {
    /// Posts `signal` inside the application's own transaction on `connection`, so that the post is
    /// stored if and only if that transaction commits: write a row and post its signal in one
    /// transaction, and neither happens without the other.
    ///
    /// ```swift
    /// try await client.withTransaction { connection in
    ///     try await connection.query("INSERT INTO photos (id) VALUES (\(photoID))", logger: logger)
    ///     try await store.post("thumbnails.requested", payload: ["photoID": photoID], in: connection)
    /// }
    /// ```
    ///
    /// `connection` must be in a transaction (between `BEGIN` and `COMMIT`, as inside
    /// `PostgresClient.withTransaction`) on the store's database. The post runs in a savepoint, with
    /// the store's schema as `search_path` and `enable_seqscan` off, as on the store's own connections
    /// (the connection's own settings are set back afterwards): when it throws, the savepoint is
    /// rolled back and the transaction can go on. The centers of the consumers are woken when the
    /// transaction commits (PostgreSQL sends a transaction's notifications at its commit), never
    /// before, and not at all when it rolls back.
    ///
    /// A post behaves as `SignalCenter.post(_:payload:ifUnconsumed:notBefore:idempotencyKey:orderingKey:debounce:)`, and throws what it
    /// throws before storing anything; it is not tried again after a lost connection (the application's
    /// transaction is lost with it).
    ///
    /// - Throws: `SignalError.database` when `connection` is not in a transaction (nothing was posted)
    ///   or a statement failed; the errors of `SignalCenter.post(_:payload:ifUnconsumed:notBefore:idempotencyKey:orderingKey:debounce:)`.
    @discardableResult
    public func post(
        _ signal: SignalID, payload: SignalPayload = SignalPayload(), ifUnconsumed: UnconsumedPolicy = .report,
        notBefore: Date? = nil, in connection: PostgresConnection
    ) async throws(SignalError) -> PostResult {
        let results = try await post(
            [SignalPost(signal, payload: payload, ifUnconsumed: ifUnconsumed, notBefore: notBefore)], in: connection)
        guard let result = results.first else {
            throw .database(path: location, operation: "posting signal '\(signal)'", detail: "the post made no result")
        }
        return result
    }

    /// Posts `posts` in their order inside the application's own transaction on `connection`, as
    /// ``post(_:payload:ifUnconsumed:notBefore:in:)`` posts one: all are stored if and only if the
    /// transaction commits.
    @discardableResult
    public func post(_ posts: [SignalPost], in connection: PostgresConnection) async throws(SignalError) -> [PostResult]
    {
        if readsOnly { throw .storeReadOnly(path: location, operation: "posting \(posts.count) signals") }
        try await prepare()
        return try await SignalCenter.post(posts) { program throws(SignalError) in
            try await self.runInSavepoint(program, connection)
        }
    }

    /// Runs `program` on `connection`, in a savepoint of the transaction it is in, with the store's
    /// schema as the connection's `search_path` and `PostgresStatements.planSetting`; rolls the
    /// savepoint back when it fails. A post runs as the store's own post does: one in its prepared
    /// statement, several after locking their signals' records.
    private func runInSavepoint(
        _ program: StoreProgram<[PostResult]>, _ connection: PostgresConnection
    ) async throws(SignalError) -> [PostResult] {
        let logger = options.logger
        do {
            try await connection.query("SAVEPOINT handlerkit_post", logger: logger)
        } catch {
            throw .database(
                path: location, operation: program.purpose,
                detail:
                    "the connection is not in a transaction (\(String(reflecting: error))): post(_:in:) posts inside the application's transaction; call it between BEGIN and COMMIT, e.g. inside PostgresClient.withTransaction"
            )
        }
        do {
            let (name, value) = PostgresStatements.planSetting
            var previous = ("", "")
            for try await (path, plans, _, _) in try await connection.query(
                """
                SELECT current_setting('search_path'), current_setting(\(name)),
                       set_config('search_path', \(schema), true), set_config(\(name), \(value), true)
                """, logger: logger
            ).decode((String, String, String, String).self) { previous = (path, plans) }
            let results: [PostResult]
            switch program.shortcut {
            case .posts(let postings, let now, let answer)? where postings.count == 1 && postings[0].fitsOneStatement:
                results = answer([try await post(postings[0], now: now, connection)])
            case .posts(let postings, _, _)?:
                try await lockSignals(postings, connection)
                results = try await run(program, connection)
            default:
                results = try await run(program, connection)
            }
            try await connection.query(
                "SELECT set_config('search_path', \(previous.0), true), set_config(\(name), \(previous.1), true)",
                logger: logger)
            try await connection.query("RELEASE SAVEPOINT handlerkit_post", logger: logger)
            return results
        } catch {
            // Back to where the application's transaction was, its search_path and plan setting with it.
            _ = try? await connection.query("ROLLBACK TO SAVEPOINT handlerkit_post", logger: logger)
            _ = try? await connection.query("RELEASE SAVEPOINT handlerkit_post", logger: logger)
            if let signal = error as? SignalError { throw signal }
            throw connections.signalError(error, operation: program.purpose)
        }
    }
}
#endif
