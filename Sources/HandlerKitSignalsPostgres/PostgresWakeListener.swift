// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging

/// Wakes a signal center (or a task awaiting a promise) through `LISTEN` on the store's channel, the
/// store's ``PostgresWakeChannel``: every post, registration, requeue, takeover or settlement that
/// makes a delivery due sends `NOTIFY` in its own transaction, so the listener wakes when it commits.
/// As a fallback, `next` also returns every `rescanInterval`, so a notification that never arrives
/// delays a delivery by at most that. A notification's payload is the run that has new deliveries
/// (or a work queue, whose deliveries every run of its component claims; or empty: anything may have
/// changed); the listener wakes only for runs of its own process and for work queues (`accepts`), so
/// posts for one host's runs do not wake every other host.
final class PostgresWakeListener: SignalWakeListener, Sendable {
    private let signal = WakeSignal()
    private let channel: PostgresWakeChannel
    private let membership: Locked<Int?>
    private let rescanInterval: Duration
    private let logger: Logger

    init(
        channel: PostgresWakeChannel, rescanInterval: Duration, logger: Logger,
        accepts: @escaping @Sendable (_ payload: String) -> Bool
    ) {
        self.channel = channel
        self.rescanInterval = rescanInterval
        self.logger = logger
        membership = Locked(channel.join(signal, accepts: accepts))
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
        if let member = membership.withLock({ $0.take() }) { channel.leave(member) }
    }

    deinit {
        close()
    }
}
#endif
