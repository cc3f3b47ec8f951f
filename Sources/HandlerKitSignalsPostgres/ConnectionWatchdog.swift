// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import HandlerKit
import PostgresNIO

/// Ends a call whose statement the server has not answered by a deadline: the call throws
/// ``NoAnswer`` at the deadline and its connection is closed.
///
/// The call's body runs in a task of its own, on the event loop of the call's connection
/// (``EventLoopTaskExecutor``), and the caller does not wait for it past the deadline:
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
            let watch = CallDeadlines.shared.watch(until: deadline) {
                if race.finish(.failure(NoAnswer(waited: waited))) { Task { try? await connection.close() } }
            }
            let run: @Sendable () async -> Void = {
                let result: Result<T, any Error>
                do {
                    result = .success(try await body())
                } catch {
                    result = .failure(error)
                }
                CallDeadlines.shared.forget(watch)
                _ = race.finish(result)
            }
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
                Task(executorPreference: EventLoopTaskExecutor.of(connection.eventLoop)) { await run() }
            } else {
                Task { await run() }
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

/// The deadlines of the calls in flight, watched by one timer task for the whole process rather than
/// a timer task per call, started and cancelled around every statement. The timer sleeps until the
/// earliest deadline, expires the calls whose deadline passed, and sleeps again until the next one; it
/// ends when no call is watched.
private final class CallDeadlines: Sendable {
    static let shared = CallDeadlines()

    private struct Call {
        let deadline: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State {
        var calls: [Int: Call] = [:]
        var nextID = 0
        /// The timer, and the deadline it sleeps until.
        var timer: (task: Task<Void, Never>, until: ContinuousClock.Instant)?
    }

    private let state = Locked(State())

    /// Calls `expire` at `deadline` unless ``forget(_:)`` is called first with the returned id.
    func watch(until deadline: ContinuousClock.Instant, expire: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.calls[id] = Call(deadline: deadline, expire: expire)
            if state.timer.map({ deadline < $0.until }) ?? true {
                state.timer?.task.cancel()
                state.timer = (Task { await self.sleep(until: deadline) }, deadline)
            }
            return id
        }
    }

    func forget(_ id: Int) {
        _ = state.withLock { $0.calls.removeValue(forKey: id) }
    }

    /// The timer: expires the calls due at `deadline`, then sleeps until the next deadline.
    private func sleep(until deadline: ContinuousClock.Instant) async {
        var until = deadline
        while true {
            try? await Task.sleep(until: until)
            if Task.isCancelled { return }
            let (expired, next) = state.withLock { state -> ([Call], ContinuousClock.Instant?) in
                let now = ContinuousClock.now
                let expired = state.calls.filter { $0.value.deadline <= now }
                for id in expired.keys { state.calls[id] = nil }
                let next = state.calls.values.map(\.deadline).min()
                if let next, let timer = state.timer {
                    state.timer = (timer.task, next)
                } else {
                    state.timer = nil
                }
                return (Array(expired.values), next)
            }
            for call in expired { call.expire() }
            guard let next else { return }
            until = next
        }
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
