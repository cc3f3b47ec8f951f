// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import HandlerKit
import PostgresNIO

/// Ends a call whose statement the server has not answered by a deadline: the call throws
/// ``NoAnswer`` at the deadline and its connection is closed.
///
/// The call's body runs in a task of its own, and the caller does not wait for it past the deadline:
/// closing the connection fails a statement that is waiting for its answer, but postgres-nio never
/// answers a statement written to a connection that had just been closed (the write fails without
/// failing the statement), and such a call would otherwise hold its caller forever. An abandoned
/// body ends when its statement does, if ever; it holds nothing but its closed connection.
enum ConnectionWatchdog {
    /// Runs `body`, which uses `connection`; when it has not ended by `deadline`, closes the
    /// connection and throws `NoAnswer` (saying it waited `waited`) without waiting for `body`.
    static func answer<T: Sendable>(
        closing connection: PostgresConnection, by deadline: ContinuousClock.Instant, waited: Duration,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = Race<T>()
        return try await withCheckedThrowingContinuation { continuation in
            race.start(continuation)
            let timer = Task {
                try? await Task.sleep(until: deadline)
                if Task.isCancelled { return }
                if race.finish(.failure(NoAnswer(waited: waited))) { try? await connection.close() }
            }
            Task {
                let result: Result<T, any Error>
                do {
                    result = .success(try await body())
                } catch {
                    result = .failure(error)
                }
                timer.cancel()
                _ = race.finish(result)
            }
        }
    }

    /// Runs `body`, which uses `connection`; when it has not ended within `limit`, closes the
    /// connection and throws `NoAnswer`.
    @discardableResult
    static func bounded<T: Sendable>(
        _ connection: PostgresConnection, within limit: Duration, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await answer(closing: connection, by: .now + limit, waited: limit, body)
    }

    /// Waits for `task` to end, at most `limit`.
    static func wait(for task: Task<Void, Never>, atMost limit: Duration) async {
        let (ended, continuation) = AsyncStream<Void>.makeStream()
        let waiter = Task {
            await task.value
            continuation.finish()
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            continuation.finish()
        }
        for await _ in ended {}
        waiter.cancel()
        timer.cancel()
    }
}

/// The continuation of a call that ``ConnectionWatchdog`` races against its deadline: the first of
/// the body and the deadline to finish resumes it, once.
private final class Race<T: Sendable>: Sendable {
    private let waiting = Locked<CheckedContinuation<T, any Error>?>(nil)

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        waiting.withLock { $0 = continuation }
    }

    /// Resumes the call with `result`; `false` when it was resumed before.
    func finish(_ result: Result<T, any Error>) -> Bool {
        let continuation = waiting.withLock { waiting in
            defer { waiting = nil }
            return waiting
        }
        guard let continuation else { return false }
        continuation.resume(with: result)
        return true
    }
}

/// A statement the server did not answer in time; its connection was closed.
struct NoAnswer: Error, CustomStringConvertible {
    var waited: Duration
    var description: String {
        "no answer from the server for \(PostgresConnections.format(waited)); the connection was closed"
    }
}
#endif
