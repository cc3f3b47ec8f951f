/// What ``SignalCenter/suspend(finishingWithin:)`` did.
public struct SuspensionReport: Sendable, Hashable {
    /// The run that is suspended.
    public var runID: String
    /// Deliveries this run had claimed whose handlers had not started: given back (pending again,
    /// their attempt not counted), for this run after `resume()` or for the process that takes the
    /// run over.
    public var claimsGivenBack = 0
    /// Handlers that were running when the suspension began and returned within the grace period
    /// (their deliveries were settled before the suspension).
    public var handlersFinished = 0
    /// The deliveries whose handlers were still running at the end of the grace period. They keep
    /// running in memory and stay claimed by the run; each one's completion waits for `resume()`
    /// and goes through only when the run was not taken over meanwhile. A process that takes the
    /// run over runs them again, with the same `deliveryKey` (their attempt counts as interrupted).
    public var handlersStillRunning: [DeliveryKey] = []
    /// `true` when the center was suspended already: nothing was done.
    public var wasSuspended = false

    init(runID: String) {
        self.runID = runID
    }
}

/// What ``SignalCenter/resume()`` found and did.
public struct ResumeReport: Sendable, Hashable {
    /// The run the center delivers for now: the suspended run, or a new one when it was taken over.
    public var runID: String
    /// The run that was suspended.
    public var suspendedRunID: String
    /// `true` when another process of the component took the suspended run over meanwhile: the
    /// center carries on as a new run (``runID``), after taking over the component's runs that are
    /// gone, as a start does (``takeover``). The durable consumers of the suspended run were adopted
    /// by the taker (this process delivers for them again only once that run is gone too); its
    /// run-lifetime consumers were removed (``removedRunConsumers``), and the completions of its
    /// handlers that ran past the suspension were refused.
    public var wasTakenOver = false
    /// What the new run took over when it began (empty when the run was resumed as it was).
    public var takeover = TakeoverReport()
    /// The run-lifetime consumers the suspended run had when it was suspended, removed by the
    /// process that took it over (empty when the run was resumed as it was).
    public var removedRunConsumers: [ConsumerID] = []
    /// `false` when the center was not suspended: nothing was done.
    public var wasSuspended = true

    init(runID: String, suspendedRunID: String) {
        self.runID = runID
        self.suspendedRunID = suspendedRunID
    }
}
