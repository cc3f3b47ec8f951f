import HandlerKit

/// The serial queue of one background subscriber: each job starts after the previous one ended, so
/// deliveries keep their send order; they run on the concurrency runtime's threads, never the sender's.
@usableFromInline
final class BackgroundQueue: Sendable {
    private let tail = Locked<Task<SubscriberFailure?, Never>?>(nil)

    /// Queues `job` after every job queued before; the task ends with what it reported.
    @usableFromInline @discardableResult
    func enqueue(_ job: @escaping @Sendable () async -> SubscriberFailure?) -> Task<SubscriberFailure?, Never> {
        tail.withLock { tail in
            let previous = tail
            let task = Task {
                _ = await previous?.value
                return await job()
            }
            tail = task
            return task
        }
    }
}
