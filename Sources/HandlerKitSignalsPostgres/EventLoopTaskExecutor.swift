// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import HandlerKit
import NIOCore

/// Runs the jobs of a task on a NIO event loop: the task that runs a call's statements prefers the
/// event loop of the call's connection, so postgres-nio's writes and the resumptions after each
/// answer happen on that loop's thread instead of hopping between it and the global pool (about
/// two thread wake-ups per statement).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    private init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// The executor of `loop`; one per event loop, kept for the process (the loops of postgres-nio's
    /// shared group live as long).
    static func of(_ loop: any EventLoop) -> EventLoopTaskExecutor {
        executors.withLock { executors in
            if let executor = executors[ObjectIdentifier(loop)] { return executor }
            let executor = EventLoopTaskExecutor(loop)
            executors[ObjectIdentifier(loop)] = executor
            return executor
        }
    }

    private static let executors = Locked<[ObjectIdentifier: EventLoopTaskExecutor]>([:])
}
#endif
