import Foundation

extension SignalCenter {
    /// How often a center looks for dead runs of its component while the component's work queue
    /// has deliveries, on a store that gives no `SignalStore.livenessCheckInterval` of its own: a run
    /// that died holding claims of the queue is taken over within about this.
    static let queueLivenessInterval = Duration.seconds(2)

    /// The owner that this center's component's work queue records for its consumers and deliveries.
    var queueOwner: String { WorkQueue.owner(of: component) }

    /// Claims deliveries of the component's work queue while this center has free workers
    /// (`Options.queueConcurrency`), and runs each in a task of its own. Each task, once its
    /// delivery is settled, claims again for the worker it frees, so a busy queue keeps every worker
    /// busy without a delivery pass.
    func workQueue(generation: Int) async throws(SignalError) {
        while true {
            let workers = state.withLock { $0.queueWorkers.reserve(upTo: options.claimBatch) }
            guard workers > 0 else { return }
            var taken = 0
            defer { state.withLock { $0.queueWorkers.free(workers - taken) } }
            guard let (batch, claimant, asked) = try await passClaim(generation, owner: queueOwner, limit: workers)
            else { return }
            if batch.deliveries.isEmpty {
                if batch.firstStart == .runTakenOver { noteTakenOver(claimant) }
                return
            }
            taken = batch.deliveries.count
            state.withLock { state in
                for (index, delivery) in batch.deliveries.enumerated() {
                    // The claim marked them all started, or the first.
                    let marked: Mark? =
                        batch.allStarted ? (.started, asked) : index == 0 ? batch.firstStart.map { ($0, asked) } : nil
                    state.queueWorkers.add { task in
                        Task {
                            await self.runQueueDelivery(delivery, marked: marked, generation: generation, task: task)
                        }
                    }
                }
            }
            if taken < workers { return }
        }
    }

    /// A worker of the queue: runs `delivery`, and the next deliveries its completions claim for it;
    /// then frees its worker, and claims again for it.
    private func runQueueDelivery(_ delivery: ClaimedDelivery, marked: Mark?, generation: Int, task: Int) async {
        var current: (delivery: ClaimedDelivery, marked: Mark?)? = (delivery, marked)
        while let (delivery, marked) = current {
            current = nil
            do {
                let (delivered, next) = try await deliverFromQueue(delivery, marked: marked, generation: generation)
                switch delivered {
                case .completed: state.withLock { $0.queueWorkers.countCompletion() }
                case .runTakenOver: noteTakenOver(delivery.runID)
                case .notCompleted, .held, .passEnded: break
                }
                current = next
            } catch {
                if state.withLock({ $0.lifecycle.allows(generation) }) { report(error) }
            }
        }
        state.withLock { $0.queueWorkers.free(1) }
        if state.withLock({ $0.lifecycle.allows(generation) }) {
            do {
                try await workQueue(generation: generation)
            } catch {
                if state.withLock({ $0.lifecycle.allows(generation) }) { report(error) }
            }
        }
        state.withLock { $0.queueWorkers.ended(task) }
    }

    /// Notes whether the component's work queue has deliveries (pending or claimed), from the run's
    /// `status`: then delivery passes claim from it, and look for dead runs of the component that may
    /// hold its claims (every ``queueLivenessInterval`` on a store that does not ask for looks of its
    /// own). Answers whether it has.
    func noteQueue(_ status: RunStatus) -> Bool {
        let active = status.queueHasDeliveries
        state.withLock { state in
            state.queueWorkers.active = active
            if active { state.queueWorkers.known = true }
            guard store.livenessCheckInterval == nil else { return }
            if !active {
                state.nextLivenessCheck = nil
            } else if state.nextLivenessCheck == nil {
                state.nextLivenessCheck = .now + Self.queueLivenessInterval
            }
        }
        return active
    }

    /// Waits until no worker of the queue runs; answers how many of the queue's deliveries this
    /// center has completed in all.
    func queueWorkersFinished() async -> Int {
        while true {
            let (tasks, completed) = state.withLock { (Array($0.queueWorkers.tasks.values), $0.queueWorkers.completed) }
            if tasks.isEmpty { return completed }
            for task in tasks { await task.value }
        }
    }
}
