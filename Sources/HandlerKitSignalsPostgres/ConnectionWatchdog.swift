// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import HandlerKit
import PostgresNIO

/// Closes a connection whose statement has not been answered by a deadline: its statements then
/// fail at once (closing the socket needs no answer from the server), so a call on a connection to
/// a server that stopped answering (a network cut, a stopped host) ends at the deadline.
final class ConnectionWatchdog: Sendable {
    private let fired = Locked(false)
    private let task = Locked<Task<Void, Never>?>(nil)

    /// Watches `connection` until `deadline` or `end()`.
    init(closing connection: PostgresConnection, at deadline: ContinuousClock.Instant) {
        let fired = fired
        task.withLock { task in
            task = Task {
                try? await Task.sleep(until: deadline)
                if Task.isCancelled { return }
                fired.withLock { $0 = true }
                try? await connection.close()
            }
        }
    }

    /// Stops watching; whether the deadline had passed (and the connection was closed).
    func end() -> Bool {
        task.withLock { $0 }?.cancel()
        return fired.withLock { $0 }
    }

    /// Runs `body`, which uses `connection`; when it has not ended within `limit`, closes the
    /// connection (ending `body`) and throws `NoAnswer`.
    @discardableResult
    static func bounded<T>(
        _ connection: PostgresConnection, within limit: Duration, _ body: () async throws -> T
    ) async throws -> T {
        let watchdog = ConnectionWatchdog(closing: connection, at: .now + limit)
        do {
            let result = try await body()
            _ = watchdog.end()
            return result
        } catch {
            if watchdog.end() { throw NoAnswer(waited: limit) }
            throw error
        }
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

/// A statement the server did not answer in time; its connection was closed.
struct NoAnswer: Error, CustomStringConvertible {
    var waited: Duration
    var description: String {
        "no answer from the server for \(PostgresConnections.format(waited)); the connection was closed"
    }
}
#endif
