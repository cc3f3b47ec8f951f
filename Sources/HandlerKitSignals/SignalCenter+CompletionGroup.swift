import Foundation

extension SignalCenter {
    /// What became of a work-queue delivery's completion (``CompletionGroup``): whether it completed,
    /// and the delivery claimed for its worker in the same transaction, with its mark.
    struct QueueCompletion: Sendable {
        var completed: Bool
        var next: (delivery: ClaimedDelivery, marked: Mark?)?
    }

    /// Completes a work-queue delivery whose handler returned, in the next group commit
    /// (``CompletionGroup``), which also claims the next delivery for its worker while the pass of
    /// `generation` may go on.
    func completeInGroup(
        _ delivery: ClaimedDelivery, generation: Int
    ) async throws(SignalError) -> QueueCompletion {
        let answer = await withCheckedContinuation { continuation in
            let entry = CompletionGroup.Entry(
                delivery: delivery, endingConsumer: delivery.mode == .once, generation: generation,
                answer: continuation)
            if state.withLock({ $0.completions.add(entry) }) {
                // A task of its own commits, so that the completions that arrive before it runs join.
                Task { await self.commitCompletions() }
            }
        }
        let completion = try answer.get()
        if completion.completed {
            metrics.completed.increment()
            log(.trace, "delivery completed", Self.metadata(of: delivery))
        } else {
            log(.debug, "delivery not completed: its claim was lost", Self.metadata(of: delivery))
        }
        return completion
    }

    /// Commits the waiting completions, a group a transaction, until none waits.
    private func commitCompletions() async {
        while case let entries = state.withLock({ $0.completions.next() }), !entries.isEmpty {
            let answers = await commit(entries)
            for (entry, answer) in zip(entries, answers) { entry.answer.resume(returning: answer) }
        }
    }

    /// Completes `entries` in one transaction, with the claim of a next delivery for each worker
    /// whose pass may go on; answers each entry's completion.
    private func commit(_ entries: [CompletionGroup.Entry]) async -> [Result<QueueCompletion, SignalError>] {
        let asked = ContinuousClock.now
        let group = entries.map { (delivery: $0.delivery, endingConsumer: $0.endingConsumer) }
        var outcome = GroupCompletion(completed: [], claimed: nil)
        // Decided once the settlement may go on (after a suspension, the workers of the passes before
        // it take nothing more), and again when the store was busy.
        var request: ClaimRequest?
        var continuing: [Int] = []
        do {
            try await settle { () throws(SignalError) in
                (request, continuing) = self.claim(for: entries, asked: request)
                let now = Date().timeIntervalSince1970
                if request == nil, let only = group.first, group.count == 1 {
                    // A completion alone, without a claim: the plain one, which a store may shortcut.
                    let completion = try await self.store.perform(
                        StoreProgram<CompletionOutcome>.complete(
                            only.delivery, endingConsumer: only.endingConsumer, thenStarting: nil, now: now))
                    outcome = GroupCompletion(completed: [completion.completed], claimed: nil)
                } else {
                    outcome = try await self.store.perform(.completeGroup(group, thenClaiming: request, now: now))
                }
            }
        } catch {
            if request != nil { state.withLock { $0.claims.failed() } }
            return entries.map { _ in .failure(error) }
        }
        var answers = entries.indices.map { index in
            Result<QueueCompletion, SignalError>.success(
                QueueCompletion(completed: index < outcome.completed.count && outcome.completed[index], next: nil))
        }
        guard let request else { return answers }
        guard let batch = outcome.claimed else {
            // No claim answered although one was asked: a try after a lost connection answered from
            // the first try's record (what that try claimed, the next claim takes back), or the store
            // ran the group without its claim (`StoreProgram.unmarked`); either way the next claim
            // looks for claims of the run that no worker holds.
            state.withLock { $0.claims.failed() }
            return answers
        }
        state.withLock { $0.claims.claimed(batch.deliveries) }
        if batch.deliveries.isEmpty && batch.firstStart == .runTakenOver { noteTakenOver(request.runID) }
        for (index, delivery) in zip(continuing, batch.deliveries) {
            let first = delivery.rowID == batch.deliveries.first?.rowID
            let marked: Mark? =
                batch.allStarted ? (.started, asked) : first ? batch.firstStart.map { ($0, asked) } : nil
            answers[index] = answers[index].map { QueueCompletion(completed: $0.completed, next: (delivery, marked)) }
        }
        return answers
    }

    /// The claim that goes with the completions of `entries`: one delivery for each worker whose pass
    /// may go on now (their indices), none when no pass may. `asked` is the request of an earlier try
    /// (the store was busy), kept so that what it asked of the run's lost claims is asked again.
    private func claim(
        for entries: [CompletionGroup.Entry], asked: ClaimRequest?
    ) -> (ClaimRequest?, [Int]) {
        state.withLock { state in
            let continuing = entries.indices.filter { state.lifecycle.allows(entries[$0].generation) }
            guard !continuing.isEmpty else {
                // An earlier try's request that was to take back lost claims is not made: the next is.
                if asked?.reclaimingLost == true { state.claims.failed() }
                return (nil, [])
            }
            var request =
                asked
                ?? state.claims.request(
                    runID: state.lifecycle.runID, owner: queueOwner, limit: continuing.count, startingFirst: true,
                    startingAll: true)
            request.limit = continuing.count
            return (request, continuing)
        }
    }
}
