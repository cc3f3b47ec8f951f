import Foundation
import HandlerKit
import Logging
import Tracing

extension SignalCenter {
    /// Runs every delivery of this run that is due now, one at a time in the order posted (those
    /// whose previous attempt's process died after the others claimed with them), then the due
    /// deliveries of the component's work queue, up to `Options.queueConcurrency` at once, waiting
    /// for them; returns how many were completed. With `Options.deliversAutomatically` a task does
    /// this whenever a process posts. When the store gives a `SignalStore.livenessCheckInterval`
    /// (PostgreSQL), a pass that comes that long after the last look first takes over the
    /// component's runs that are gone.
    ///
    /// - Throws: `SignalError.suspended` while the center is suspended (nothing is claimed then);
    ///   the store's errors.
    @discardableResult
    public func deliverDue() async throws(SignalError) -> Int {
        switch state.withLock({ $0.lifecycle.deliverDueRequested() }) {
        case .refuse(let error): throw error
        case .pass(let generation):
            let before = state.withLock { $0.queueWorkers.completed }
            let completed = try await deliverDue(generation: generation, fromQueue: false)
            try await workQueue(generation: generation)
            return completed + (await queueWorkersFinished() - before)
        }
    }

    /// One delivery pass; it claims and starts nothing once the center is stopped or suspended, or
    /// `generation` is no longer the current one (a suspension came between). When a look for dead
    /// runs is due, it takes them over first, so that their deliveries are claimed in this pass.
    /// With `fromQueue` it first gives the component's work queue's due deliveries to its free
    /// workers.
    private func deliverDue(generation: Int, fromQueue: Bool) async throws(SignalError) -> Int {
        try await takeOverDeadRunsWhenDue(generation: generation)
        if fromQueue { try await workQueue(generation: generation) }
        var completed = 0
        // Settlements held for a task of this center that did not await their promises in time go
        // to their fallbacks first.
        while case let expired = promiseWaiters.takeExpiredHolds(generation: generation), !expired.isEmpty {
            for held in expired {
                switch try await deliver(held.delivery, marked: nil, next: nil, generation: generation).0 {
                case .completed: completed += 1
                case .notCompleted, .held: continue
                case .passEnded: return completed
                case .runTakenOver:
                    report(.runTakenOver(component: component, runID: held.delivery.runID))
                    return completed
                }
            }
        }
        while true {
            // A run found taken over is replaced first; another pass replacing it ends this one.
            guard try await carryOnIfTakenOver(generation) else { break }
            guard let (batch, claimant, asked) = try await passClaim(generation, owner: nil, limit: options.claimBatch)
            else { break }
            let claimed = batch.deliveries
            if claimed.isEmpty {
                // Deliveries of the run were due, but the run was taken over: none was claimed.
                guard batch.firstStart == .runTakenOver else { break }
                noteTakenOver(claimant)
                continue
            }
            // The mark of the next delivery: the first's made with the claim, the others' with the
            // previous one's completion.
            var marked: Mark? = batch.firstStart.map { ($0, asked) }
            delivering: for (index, delivery) in claimed.enumerated() {
                do {
                    let next = index + 1 < claimed.count ? claimed[index + 1] : nil
                    let delivered: Delivered
                    (delivered, marked) = try await deliver(
                        delivery, marked: marked, next: next, generation: generation)
                    switch delivered {
                    case .completed: completed += 1
                    case .notCompleted, .held: continue
                    case .passEnded:
                        // Stopped or suspended: the claims not started stay claimed; `endRun` or the
                        // suspension gives them back without counting their attempt.
                        return completed
                    case .runTakenOver:
                        // The rest of the batch is the taker's now: none of it may start here. The
                        // center carries on as a new run, from the next batch on.
                        noteTakenOver(delivery.runID)
                        break delivering
                    }
                } catch {
                    // The store failed to start or settle this delivery: it was not started, or it stays
                    // claimed (its handler may have run) until the next claim takes it back. The claims
                    // not started are given back; where the store cannot take them either, the next
                    // claim takes them back too (`HeldClaims`).
                    for rest in claimed[(index + 1)...] {
                        let released = try? await passCall(generation) { _ throws(SignalError) in
                            try await store.release(rest, reason: "not started: \(error)", retryAt: Date())
                        }
                        state.withLock { state in
                            state.claims.settled(rest)
                            if released == nil { state.claims.failed() }
                        }
                    }
                    throw error
                }
            }
            // A short batch took everything that was due; what is posted meanwhile wakes the center
            // again. A run found taken over is replaced at once.
            if claimed.count < options.claimBatch && !isTakenOver { break }
        }
        return completed
    }

    /// Claims up to `limit` due deliveries of `owner` (`nil`: the run's own) for the current run, in a
    /// store call of the pass of `generation`: the batch, the run that claimed it, and when the claim
    /// was asked for; `nil` when the pass may not go on.
    func passClaim(
        _ generation: Int, owner: String?, limit: Int
    ) async throws(SignalError) -> (batch: ClaimedBatch, claimant: String, asked: ContinuousClock.Instant)? {
        let asked = ContinuousClock.now
        var claimant = ""
        guard
            let batch = try await passCall(
                generation,
                { runID throws(SignalError) in
                    claimant = runID
                    return try await claim(for: runID, owner: owner ?? runID, limit: limit)
                })
        else { return nil }
        return (batch, claimant, asked)
    }

    /// Claims for `runID` up to `limit` due deliveries of `owner` (the run, or the component's work
    /// queue), the first marked started (of the queue's, every one); after a claim or a settlement
    /// failed, also the run's claims this center no longer holds (`HeldClaims`).
    func claim(for runID: String, owner: String, limit: Int) async throws(SignalError) -> ClaimedBatch {
        let request = state.withLock {
            // A work queue's workers start what is claimed at once: every delivery is marked.
            $0.claims.request(
                runID: runID, owner: owner, limit: limit, startingFirst: true, startingAll: owner != runID)
        }
        do {
            let batch = try await store.claim(request)
            state.withLock { $0.claims.claimed(batch.deliveries) }
            return batch
        } catch {
            state.withLock { $0.claims.failed() }
            throw error
        }
    }

    /// The number of this run's deliveries not yet completed (pending, waiting for a retry, or running).
    ///
    /// - Throws: `SignalError.suspended` while the center is suspended; the store's errors.
    public func openDeliveries() async throws(SignalError) -> Int {
        let open = try await storeCall { () throws(SignalError) in try await store.runStatus(of: runID).openDeliveries }
        metrics.openDeliveries.record(open)
        return open
    }

    /// The automatic delivery task of `generation`: delivers what is due, then sleeps until a process
    /// posts, the next retry is due or the next look for dead runs (`SignalStore.livenessCheckInterval`).
    /// It ends when the center stops or is suspended.
    func deliverContinuously(_ listener: any SignalWakeListener, generation: Int) async {
        var failures = 0
        while state.withLock({ $0.lifecycle.allows(generation) }) {
            var deadline = ContinuousClock.now + .seconds(60)
            do {
                let fromQueue = state.withLock { $0.queueWorkers.active || $0.queueWorkers.known }
                _ = try await deliverDue(generation: generation, fromQueue: fromQueue)
                let status = try await passCall(generation) { runID throws(SignalError) in
                    try await store.runStatus(of: runID, queue: queueOwner)
                }
                if let status, noteQueue(status) && !fromQueue {
                    // The queue has deliveries this pass did not look for: another pass, at once.
                    deadline = .now
                }
                if let open = status?.openDeliveries { metrics.openDeliveries.record(open) }
                if let retry = status?.nextDue {
                    deadline = min(deadline, .now + .seconds(max(0, retry.timeIntervalSinceNow)))
                }
                // The queue's deliveries due now are its workers' to claim as they free up: only a
                // later one (delayed, or a retry) sets a time to look again.
                if let later = status?.queueNextDue, later.timeIntervalSinceNow > 0 {
                    deadline = min(deadline, .now + .seconds(later.timeIntervalSinceNow))
                }
                if let held = promiseWaiters.nextHoldEnd(generation: generation) { deadline = min(deadline, held) }
                if let check = state.withLock({ $0.nextLivenessCheck }) { deadline = min(deadline, check) }
                failures = 0
            } catch {
                if !state.withLock({ $0.lifecycle.allows(generation) }) { break }
                report(error)
                failures += 1
                deadline = .now + .milliseconds(min(1_000, 10 << min(failures, 7)))
            }
            if !state.withLock({ $0.lifecycle.allows(generation) }) { break }
            await listener.next(deadline: deadline)
        }
        // A suspension that ended this task listed it (in the same lock as the change of generation).
        _ = state.withLock { $0.formerLoops.removeValue(forKey: generation) }
    }

    /// A delivery pass's look for dead runs, when one is due (every `SignalStore.livenessCheckInterval`
    /// of the store): takes over the runs of the component that are gone, as ``takeOverDeadRuns()``
    /// does, while the pass of `generation` may go on.
    private func takeOverDeadRunsWhenDue(generation: Int) async throws(SignalError) {
        let due = state.withLock { state -> Bool in
            guard
                let every = store.livenessCheckInterval
                    ?? (state.queueWorkers.active ? Self.queueLivenessInterval : nil)
            else { return false }
            let now = ContinuousClock.now
            if let next = state.nextLivenessCheck, next > now { return false }
            state.nextLivenessCheck = now + every
            return true
        }
        guard due else { return }
        let report = try await passCall(generation) { runID throws(SignalError) in
            try await store.takeOverDeadRuns(of: component, by: runID, retry: options.retry)
        }
        if let report { recordTakeover(report) }
    }

    /// Runs a store call of a delivery pass that claims or starts (with the current run id), while
    /// the pass may go on; `nil` when it may not (stopped, suspended, or of an earlier generation).
    func passCall<T>(
        _ generation: Int, _ body: (String) async throws(SignalError) -> T
    ) async throws(SignalError) -> T? {
        guard let runID = state.withLock({ $0.lifecycle.passCallRequested(generation: generation) }) else { return nil }
        defer { state.withLock { $0.lifecycle.storeCallEnded() } }
        return try await body(runID)
    }

    /// Delivers a settlement this center held (see ``PromiseWaiters/hold(_:generation:)``) now that a
    /// task of it awaits the promise: handed to the task when it takes the settlement's value type,
    /// else to the fallback. Nothing is done when a suspension gave its claim back since (its next
    /// claim finds the task).
    func deliverHeld(_ held: HeldSettlement) async throws(SignalError) {
        let delivered = try await deliver(held.delivery, marked: nil, next: nil, generation: held.generation).0
        if delivered == .runTakenOver { report(.runTakenOver(component: component, runID: held.delivery.runID)) }
    }
}
