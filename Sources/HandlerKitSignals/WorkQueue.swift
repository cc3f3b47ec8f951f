/// A component's work queue as a store records it: the consumers registered with
/// `ConsumerLifetime.queue` and their deliveries are owned by the queue, not by a run, so that every
/// live run of the component claims them.
package enum WorkQueue {
    /// What an owner that is a work queue begins with: a run id is a UUID, so no run has it.
    private static let ownerPrefix = "queue:"

    /// The owner that the work-queue consumers of `component`, and their deliveries, record instead
    /// of a run.
    package static func owner(of component: String) -> String { ownerPrefix + component }

    /// Whether `owner` (a consumer's run, a delivery's owner, a wake-up's target) is a work queue
    /// rather than a run: it never dies, and is never taken over.
    package static func isQueue(_ owner: String) -> Bool { owner.hasPrefix(ownerPrefix) }
}
