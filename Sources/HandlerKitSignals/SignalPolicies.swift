/// How long a consumer lives.
public enum ConsumerLifetime: String, Sendable, Hashable {
    /// Survives its run: when the registering process is gone, the next process of the same
    /// component delivers to it.
    case durable
    /// Ends with its run (ownCloud's behaviour): removed, with its pending deliveries, when the
    /// run stops or is found dead.
    case run
    /// A work queue's consumer: it belongs to its component, not to a run, and lives until it is
    /// removed. Every live run of the component claims its deliveries, each center running up to
    /// `SignalCenter.Options.queueConcurrency` of them at once, so each post goes to whichever
    /// process has a free worker.
    case queue
}

/// How many revisions a consumer receives.
public enum DeliveryMode: String, Sendable, Hashable {
    /// The first revision posted after registering (or kept for it); then the consumer ends.
    case once
    /// Every revision posted while the consumer exists, in order, until it is removed.
    case everyRevision = "every"
}

/// What a post does when no consumer is registered for the signal.
public enum UnconsumedPolicy: Sendable, Hashable {
    /// Nothing is stored; the `PostResult` says no consumer received it.
    case report
    /// The signal (its latest revision) is kept this long; a consumer registering meanwhile
    /// receives it at once. (ownCloud's race: the result arrives before the consumer registers.)
    case keep(for: Duration)
}

/// How a delivery whose handler throws, or whose handler's process dies, is retried before it is
/// parked as dead.
///
/// An attempt counts once its handler was started. A handler that throws is retried after a delay
/// that doubles from ``firstDelay`` up to ``maximumDelay``; a started attempt whose process died
/// (crashed or was killed) is retried after ``firstDelay``, counted by the run that takes the dead run
/// over, with that run's policy. A claim given back before its handler started (its run ended or was
/// taken over first) does not count.
public struct RetryPolicy: Sendable, Hashable {
    /// Started attempts in all, those interrupted by their process's death included, before the
    /// delivery is dead.
    public var maximumAttempts: Int
    /// The wait before the second attempt; it doubles for each further one, up to `maximumDelay`.
    public var firstDelay: Duration
    /// The longest wait between attempts.
    public var maximumDelay: Duration

    public init(
        maximumAttempts: Int = 8, firstDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(300)
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
    }

    /// The wait after failed attempt number `attempt` (1-based).
    func delay(after attempt: Int) -> Duration {
        var delay = firstDelay
        for _ in 1..<max(1, min(attempt, 40)) where delay < maximumDelay { delay *= 2 }
        return min(delay, maximumDelay)
    }
}
