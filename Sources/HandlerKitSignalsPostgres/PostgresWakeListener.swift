// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import HandlerKit
import HandlerKitSignals
import Logging
import PostgresNIO

/// Wakes a signal center through `LISTEN` on the store's channel, on a connection of its own: every
/// post, registration, requeue or takeover that makes a delivery due sends `NOTIFY` in its own
/// transaction, so the listener wakes when it commits. When the connection is lost it reconnects
/// (and wakes once, since notifications sent meanwhile are gone). As a fallback, `next` also returns
/// every `rescanInterval`, so a notification that never arrives delays a delivery by at most that.
/// A notification's payload is the run that has new deliveries (or empty: anything may have
/// changed); the listener wakes only for runs of its own process (`accepts`), so posts for one host
/// do not wake every other host.
final class PostgresWakeListener: SignalWakeListener, Sendable {
    private let signal = WakeSignal()
    private let task = Locked<Task<Void, Never>?>(nil)
    private let connection = Locked<PostgresConnection?>(nil)
    private let rescanInterval: Duration
    private let logger: Logger
    private let location: String

    init(
        connections: PostgresConnections, channel: String, rescanInterval: Duration,
        accepts: @escaping @Sendable (_ payload: String) -> Bool
    ) {
        self.rescanInterval = rescanInterval
        let logger = connections.logger
        let location = connections.settings.location
        self.logger = logger
        self.location = location
        let listening = Task { [weak self] in
            var wait = Duration.milliseconds(20)
            var lost = false
            while !Task.isCancelled {
                do {
                    let connection = try await connections.connect()
                    self?.connection.withLock { $0 = connection }
                    if lost {
                        logger.info("wake-up connection back, listening again")
                        lost = false
                    }
                    defer { Task { try? await connection.close() } }
                    if Task.isCancelled { break }
                    try await connection.listen(on: channel) { notifications in
                        // Anything posted while there was no listener is found now.
                        self?.wake()
                        wait = .milliseconds(20)
                        for try await notification in notifications where accepts(notification.payload) { self?.wake() }
                    }
                } catch {
                    if Task.isCancelled { break }
                    // Once per outage; the tries after it fail the same way.
                    logger.log(
                        level: lost ? .debug : .info, "wake-up connection lost, reconnecting",
                        metadata: [SignalLogKey.error: .string(PostgresConnections.describe(error))])
                    lost = true
                }
                try? await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(1))
            }
        }
        task.withLock { $0 = listening }
    }

    func next(deadline requested: ContinuousClock.Instant) async {
        let rescanAt = ContinuousClock.now + rescanInterval
        let deadline = min(requested, rescanAt)
        if await signal.wait(until: deadline), deadline == rescanAt {
            logger.debug(
                "no wake-up within the rescan interval: rescanning",
                metadata: ["handlerkit.rescan_interval": .stringConvertible(rescanInterval)])
        }
    }

    func close() {
        signal.close()
        task.withLock { $0 }?.cancel()
        // Ends the wait for notifications (and so the listening task).
        if let open = connection.withLock({ $0 }) { Task { try? await open.close() } }
    }

    /// A notification arrived: resumes a waiting `next`, or makes the next call return at once.
    private func wake() {
        signal.wake()
    }

    deinit {
        task.withLock { $0 }?.cancel()
    }
}
#endif
