// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging
import PostgresNIO

/// The store's one `LISTEN` on its channel, shared by every wake listener the store made: a center's
/// delivery loop and each task awaiting a promise are woken by the same connection, so awaiting a
/// promise opens no connection (and pays no connection set-up before it can be woken).
///
/// The connection is opened when the first listener joins and closed when the last one leaves. When
/// it is lost it reconnects and wakes every listener once, since notifications sent meanwhile are
/// gone; the first `LISTEN` wakes every listener too, so none misses a commit made before it listened.
/// A listener that joins while the channel already listens needs no such wake-up: every commit from
/// then on reaches it.
final class PostgresWakeChannel: Sendable {
    private struct Member {
        let signal: WakeSignal
        let accepts: @Sendable (_ payload: String) -> Bool
    }

    private struct State {
        var members: [Int: Member] = [:]
        var nextMember = 0
        /// The task that keeps the connection listening, while any listener is a member.
        var listening: Task<Void, Never>?
        var connection: PostgresConnection?
    }

    private let state = Locked(State())
    private let connections: PostgresConnections
    private let channel: String

    init(connections: PostgresConnections, channel: String) {
        self.connections = connections
        self.channel = channel
    }

    /// Adds a listener's signal, woken by each notification whose payload `accepts` takes; returns the
    /// membership to give to ``leave(_:)``.
    func join(_ signal: WakeSignal, accepts: @escaping @Sendable (_ payload: String) -> Bool) -> Int {
        state.withLock { state in
            let member = state.nextMember
            state.nextMember += 1
            state.members[member] = Member(signal: signal, accepts: accepts)
            if state.listening == nil { state.listening = Task { await self.listen() } }
            return member
        }
    }

    /// Removes a listener; the last one to leave closes the connection.
    func leave(_ member: Int) {
        let ended = state.withLock { state -> (Task<Void, Never>, PostgresConnection?)? in
            state.members[member] = nil
            guard state.members.isEmpty, let listening = state.listening else { return nil }
            defer {
                state.listening = nil
                state.connection = nil
            }
            return (listening, state.connection)
        }
        guard let (listening, connection) = ended else { return }
        listening.cancel()
        // Ends the wait for notifications (and so the listening task).
        if let connection { Task { try? await connection.close() } }
    }

    /// Wakes the members that take `payload`, or every member (`nil`).
    private func wake(_ payload: String?) {
        let signals = state.withLock { state in
            state.members.values.filter { member in payload.map(member.accepts) ?? true }.map(\.signal)
        }
        for signal in signals { signal.wake() }
    }

    /// Listens until cancelled, reconnecting after a lost connection.
    private func listen() async {
        let logger = connections.logger
        var wait = Duration.milliseconds(20)
        var lost = false
        while !Task.isCancelled {
            do {
                let connection = try await connections.connect()
                let current = state.withLock { state -> Bool in
                    guard !Task.isCancelled else { return false }
                    state.connection = connection
                    return true
                }
                defer { Task { try? await connection.close() } }
                if !current { break }
                if lost {
                    logger.info("wake-up connection back, listening again")
                    lost = false
                }
                try await connection.listen(on: channel) { notifications in
                    // Anything posted while there was no listener is found now.
                    wake(nil)
                    wait = .milliseconds(20)
                    for try await notification in notifications { wake(notification.payload) }
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
}
#endif
