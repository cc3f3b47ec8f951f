/// The completions of a center's work-queue deliveries waiting to be committed together: group
/// commit without a timer. A completion that arrives while no group is being committed starts a task
/// that commits it at once, with whatever joined it before the task ran (an idle center completes
/// each delivery in one transaction, as before); those that arrive while one is in flight wait for
/// it, and go together in the next (a busy center commits many in one transaction).
struct CompletionGroup {
    /// A completion waiting for its group's commit.
    struct Entry {
        let delivery: ClaimedDelivery
        let endingConsumer: Bool
        /// The generation of the pass that ran the delivery: its worker takes a next delivery only
        /// while that generation may go on.
        let generation: Int
        /// Resumed with what the commit found, and the next delivery claimed for the entry's worker.
        let answer: CheckedContinuation<Result<SignalCenter.QueueCompletion, SignalError>, Never>
    }

    private var waiting: [Entry] = []
    private var committing = false

    /// Adds a completion; answers whether its caller starts a task that commits (no group is in
    /// flight).
    mutating func add(_ entry: Entry) -> Bool {
        waiting.append(entry)
        if committing { return false }
        committing = true
        return true
    }

    /// The completions of the next transaction: all that wait. Empty when none waits, which ends the
    /// committing: the next completion starts a group again.
    mutating func next() -> [Entry] {
        if waiting.isEmpty { committing = false }
        defer { waiting = [] }
        return waiting
    }
}
