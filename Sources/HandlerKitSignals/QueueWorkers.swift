/// The workers a center runs for its component's work queue (`ConsumerLifetime.queue`): how many of
/// the queue's deliveries it holds at once — claimed, or being claimed, and not yet settled — up to
/// its limit, and the tasks that run them.
///
/// A center claims only as many of the queue's deliveries as it has free workers, so that what it
/// cannot run yet stays for the other runs of its component.
struct QueueWorkers {
    /// The most deliveries of the queue the center holds at once (`SignalCenter.Options.queueConcurrency`).
    let limit: Int
    /// The workers taken: deliveries claimed, or being claimed, whose handlers have not settled.
    private(set) var busy = 0
    /// The tasks that run the queue's deliveries, by a number of their own.
    private(set) var tasks: [Int: Task<Void, Never>] = [:]
    private var lastTask = 0
    /// Deliveries of the queue completed by this center, for ``SignalCenter/deliverDue()``.
    private(set) var completed = 0
    /// Whether the component's work queue had deliveries at the center's last look: the automatic
    /// delivery task claims from the queue only then, and then looks for dead runs of the component
    /// even on a store that does not ask for it (a dead run may hold claims of the queue).
    var active = false
    /// Whether the component has a work queue, as far as the center knows: it registered a consumer
    /// of the queue, or saw deliveries of it. The automatic delivery task then claims from the queue
    /// first in every pass, so that a wake-up for an idle queue starts its handler after one claim,
    /// not after a look at the run's status and a second pass.
    var known = false

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Takes up to `most` free workers for a claim; answers how many.
    mutating func reserve(upTo most: Int) -> Int {
        let taken = max(0, min(most, limit - busy))
        busy += taken
        return taken
    }

    /// Frees `count` workers: reserved for a claim that returned fewer deliveries, or whose delivery
    /// settled.
    mutating func free(_ count: Int) {
        busy = max(0, busy - count)
    }

    /// Keeps the task that `makeTask` makes, given its number.
    mutating func add(_ makeTask: (Int) -> Task<Void, Never>) {
        lastTask += 1
        tasks[lastTask] = makeTask(lastTask)
    }

    /// The task numbered `task` ended.
    mutating func ended(_ task: Int) {
        tasks[task] = nil
    }

    /// A delivery of the queue was completed here.
    mutating func countCompletion() {
        completed += 1
    }
}
