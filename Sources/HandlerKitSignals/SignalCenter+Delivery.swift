import Foundation
import HandlerKit
import Logging
import Tracing

extension SignalCenter {
    /// Runs every delivery of this run that is due now, one at a time in the order posted (those
    /// whose previous attempt's process died after the others claimed with them), and returns how
    /// many were completed. With `Options.deliversAutomatically` a task does this whenever a
    /// process posts.
    ///
    /// - Throws: `SignalError.suspended` while the center is suspended (nothing is claimed then);
    ///   the store's errors.
    @discardableResult
    public func deliverDue() async throws(SignalError) -> Int {
        let generation = try state.withLock { state throws(SignalError) in
            if state.phase != .active { throw .suspended(component: component, runID: state.runID) }
            return state.generation
        }
        return try await deliverDue(generation: generation)
    }

    /// One delivery pass; it claims and starts nothing once the center is stopped or suspended, or
    /// `generation` is no longer the current one (a suspension came between).
    private func deliverDue(generation: Int) async throws(SignalError) -> Int {
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
            let asked = ContinuousClock.now
            var claimant = ""
            guard
                let batch = try await passCall(
                    generation,
                    { runID throws(SignalError) in
                        claimant = runID
                        return try await store.claimStartingFirst(for: runID, limit: options.claimBatch)
                    })
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
                    // claimed (its handler may have run). The claims not started are given back, so
                    // that they are not held until the run ends; where the store cannot take them
                    // either, they are held until then.
                    for rest in claimed[(index + 1)...] {
                        _ = try? await passCall(generation) { _ throws(SignalError) in
                            try await store.release(rest, reason: "not started: \(error)", retryAt: Date())
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

    /// The number of this run's deliveries not yet completed (pending, waiting for a retry, or running).
    ///
    /// - Throws: `SignalError.suspended` while the center is suspended; the store's errors.
    public func openDeliveries() async throws(SignalError) -> Int {
        let open = try await storeCall { () throws(SignalError) in try await store.runStatus(of: runID).openDeliveries }
        metrics.openDeliveries.record(open)
        return open
    }

    /// The automatic delivery task of `generation`: delivers what is due, then sleeps until a process
    /// posts or the next retry is due. It ends when the center stops or is suspended.
    func deliverContinuously(_ listener: any SignalWakeListener, generation: Int) async {
        var failures = 0
        while state.withLock({ $0.allows(generation) }) {
            var deadline = ContinuousClock.now + .seconds(60)
            do {
                _ = try await deliverDue(generation: generation)
                let status = try await passCall(generation) { runID throws(SignalError) in
                    try await store.runStatus(of: runID)
                }
                if let open = status?.openDeliveries { metrics.openDeliveries.record(open) }
                if let retry = status?.nextDue {
                    deadline = min(deadline, .now + .seconds(max(0, retry.timeIntervalSinceNow)))
                }
                if let held = promiseWaiters.nextHoldEnd(generation: generation) { deadline = min(deadline, held) }
                failures = 0
            } catch {
                if !state.withLock({ $0.allows(generation) }) { break }
                report(error)
                failures += 1
                deadline = .now + .milliseconds(min(1_000, 10 << min(failures, 7)))
            }
            if !state.withLock({ $0.allows(generation) }) { break }
            await listener.next(deadline: deadline)
        }
        // A suspension that ended this task listed it (in the same lock as the change of generation).
        _ = state.withLock { $0.formerLoops.removeValue(forKey: generation) }
    }

    /// Runs a store call of a delivery pass that claims or starts (with the current run id), while
    /// the pass may go on; `nil` when it may not (stopped, suspended, or of an earlier generation).
    func passCall<T>(
        _ generation: Int, _ body: (String) async throws(SignalError) -> T
    ) async throws(SignalError) -> T? {
        let runID = state.withLock { state -> String? in
            guard state.allows(generation) else { return nil }
            state.storeCalls += 1
            return state.runID
        }
        guard let runID else { return nil }
        defer { state.withLock { $0.storeCalls -= 1 } }
        return try await body(runID)
    }

    /// What became of one claimed delivery.
    private enum Delivered {
        case completed
        /// Failed (retried later or dead), or its claim was lost.
        case notCompleted
        /// The center was stopped or suspended before its handler started: the pass ends.
        case passEnded
        /// This run was taken over: neither it nor the rest of its batch may start here.
        case runTakenOver
        /// It settles a promise this center made: it stays claimed, held for a task of the center
        /// that awaits the promise later (``PromiseWaiters/hold(_:generation:)``).
        case held
    }

    /// Delivers a settlement this center held (see ``PromiseWaiters/hold(_:generation:)``) now that a
    /// task of it awaits the promise: handed to the task when it takes the settlement's value type,
    /// else to the fallback. Nothing is done when a suspension gave its claim back since (its next
    /// claim finds the task).
    func deliverHeld(_ held: HeldSettlement) async throws(SignalError) {
        let delivered = try await deliver(held.delivery, marked: nil, next: nil, generation: held.generation).0
        if delivered == .runTakenOver { report(.runTakenOver(component: component, runID: held.delivery.runID)) }
    }

    /// What marking a delivery started found, and when the mark was asked for.
    private typealias Mark = (outcome: StartOutcome, asked: ContinuousClock.Instant)

    /// Runs one claimed delivery's handler and completes it (marking `next` started in the same
    /// transaction), retries it later or parks it as dead. `marked` is this delivery's mark when the
    /// previous completion made it; a mark older than a second is made again.
    private func deliver(
        _ delivery: ClaimedDelivery, marked: Mark?, next: ClaimedDelivery?, generation: Int
    ) async throws(SignalError) -> (Delivered, Mark?) {
        guard state.withLock({ $0.allows(generation) }) else { return (.passEnded, nil) }
        options.faultHook?(.afterClaim)
        // A task of this process awaiting the promise this delivery settles consumes it instead of its
        // fallback handler; a promise this center made, that none of its tasks awaits yet, is held for
        // the one that will.
        var waiter = promiseWaiters.take(for: delivery)
        if waiter == nil {
            if promiseWaiters.hold(delivery, generation: generation) { return (.held, nil) }
            // A task that began to await between the two looks ended the reservation: it takes it.
            waiter = promiseWaiters.take(for: delivery)
        }
        if let waiter {
            let asked = ContinuousClock.now
            var handed = CompletionOutcome(completed: false, next: nil)
            do {
                // Like a completion: a suspension waits for it, and it waits for `resume()` once suspended.
                try await settle { () throws(SignalError) in
                    let marking = self.state.withLock { $0.allows(generation) } ? next : nil
                    handed = try await self.store.complete(delivery, endingConsumer: true, thenStarting: marking)
                }
            } catch {
                waiter.giveBack()
                throw error
            }
            if handed.completed { waiter.handOver(delivery.payload) } else { waiter.giveBack() }
            return (handed.completed ? .completed : .notCompleted, handed.next.map { ($0, asked) })
        }
        let handler: Handler
        let context: PostContext
        do {
            (handler, context) = try prepare(delivery)
        } catch {
            // Retrying cannot help: the handler cannot be rebuilt here or the payload does not fit it.
            var released = false
            try await settle { () throws(SignalError) in
                released = try await self.store.release(delivery, reason: error.description, retryAt: nil)
            }
            if released { recordDead(delivery, handler: nil, reason: error.description) }
            return (.notCompleted, nil)
        }
        let outcome: StartOutcome
        if let marked, marked.outcome != .started || marked.asked.duration(to: .now) <= .seconds(1) {
            outcome = marked.outcome
        } else {
            guard let made = try await markStarted(delivery, generation: generation) else { return (.passEnded, nil) }
            outcome = made
        }
        switch outcome {
        case .started: break
        case .claimLost: return (.notCompleted, nil)
        case .runTakenOver: return (.runTakenOver, nil)
        }
        // From here until it is settled the delivery counts as running: a suspension keeps its claim.
        let runs = state.withLock { state in
            guard state.allows(generation) else { return false }
            state.running[delivery.rowID] = delivery.key
            return true
        }
        guard runs else { return (.passEnded, nil) }
        defer { _ = state.withLock { $0.running.removeValue(forKey: delivery.rowID) } }
        let startedAt = Date()
        if let posted = context.posted {
            metrics.latency.recordNanoseconds(Int64(max(0, startedAt.timeIntervalSince(posted)) * 1e9))
        }
        log(.trace, "delivery started", Self.metadata(of: delivery))
        let span = startDeliverySpan(delivery, context: context)
        let began = ContinuousClock.now
        do {
            try await ServiceContext.withValue(span.context) {
                try await handler.call([
                    "deliveryKey": delivery.key.rawValue, "signalID": delivery.signalID,
                    "signalRevision": delivery.revision,
                ])
            }
            metrics.handlerDuration.recordNanoseconds(began.duration(to: .now).nanoseconds)
            span.end()
        } catch {
            metrics.handlerDuration.recordNanoseconds(began.duration(to: .now).nanoseconds)
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            span.end()
            let reason = "handler '\(handler.id)' threw on attempt \(delivery.attempt): \(error)"
            let retryAt: Date?
            if Self.isArgumentError(error, of: handler) || delivery.attempt >= options.retry.maximumAttempts {
                retryAt = nil
            } else {
                retryAt = Date().addingTimeInterval(options.retry.delay(after: delivery.attempt).seconds)
            }
            var released = false
            try await settle { () throws(SignalError) in
                released = try await self.store.release(delivery, reason: reason, retryAt: retryAt)
            }
            if released, let retryAt {
                metrics.retried.increment()
                var metadata = Self.metadata(of: delivery)
                metadata[SignalLogKey.handler] = .string(handler.id)
                metadata[SignalLogKey.error] = .string(reason)
                metadata["handlerkit.retry_in_seconds"] = .stringConvertible(
                    (max(0, retryAt.timeIntervalSinceNow) * 1000).rounded() / 1000)
                // The application's handler failed: its error reaches no caller, so it is logged where
                // the application's operators look, as a warning (the delivery is not lost yet).
                log(.warning, "handler threw; its delivery runs again later", metadata)
            } else if released {
                recordDead(delivery, handler: handler.id, reason: reason)
            }
            return (.notCompleted, nil)
        }
        options.faultHook?(.beforeCompletion)
        let asked = ContinuousClock.now
        var result = CompletionOutcome(completed: false, next: nil)
        try await settle { () throws(SignalError) in
            // The next delivery is marked started only while this pass may go on.
            let marking = self.state.withLock { $0.allows(generation) } ? next : nil
            result = try await self.store.complete(
                delivery, endingConsumer: delivery.mode == .once, thenStarting: marking)
        }
        if result.completed {
            metrics.completed.increment()
            log(.trace, "delivery completed", Self.metadata(of: delivery))
        } else {
            log(.debug, "delivery not completed: its claim was lost", Self.metadata(of: delivery))
        }
        return (result.completed ? .completed : .notCompleted, result.next.map { ($0, asked) })
    }

    /// Counts and logs a delivery parked as dead, at `error`: its handler does not run again until an
    /// operator requeues it. `handler` is the id of the handler that threw, when one ran.
    private func recordDead(_ delivery: ClaimedDelivery, handler: String?, reason: String) {
        metrics.dead.increment()
        var metadata = Self.metadata(of: delivery)
        if let handler { metadata[SignalLogKey.handler] = .string(handler) }
        metadata[SignalLogKey.error] = .string(reason)
        log(.error, "delivery is dead: it runs again only when requeued", metadata)
    }

    /// Marks the delivery's attempt started, right before its handler is called. When the mark took
    /// longer than a second (the process may have been stopped meanwhile, past its lease), it marks
    /// again, up to three times. A store error means the handler does not start: the delivery is
    /// given back (if the store takes it) and the error thrown. `nil` when the pass may not go on.
    private func markStarted(_ delivery: ClaimedDelivery, generation: Int) async throws(SignalError) -> StartOutcome? {
        var outcome = StartOutcome.claimLost
        for _ in 0..<3 {
            let began = ContinuousClock.now
            var wait = Duration.milliseconds(5)
            while true {
                do {
                    guard
                        let made = try await passCall(
                            generation, { _ throws(SignalError) in try await self.store.start(delivery) })
                    else { return nil }
                    outcome = made
                    break
                } catch .storeBusy(let path, let what, let waited) {
                    let busy = SignalError.storeBusy(path: path, operation: what, waitedSeconds: waited)
                    guard state.withLock({ $0.allows(generation) }) else {
                        _ = try? await passCall(generation) { _ throws(SignalError) in
                            try await store.release(delivery, reason: "not started: \(busy)", retryAt: Date())
                        }
                        throw busy
                    }
                    report(busy)
                    try? await Task.sleep(for: wait)
                    wait = min(wait * 2, .seconds(1))
                } catch {
                    _ = try? await passCall(generation) { _ throws(SignalError) in
                        try await store.release(delivery, reason: "not started: \(error)", retryAt: Date())
                    }
                    throw error
                }
            }
            if outcome != .started || began.duration(to: .now) <= .seconds(1) { break }
        }
        return outcome
    }

    /// The consumer's handler rebuilt from its document, with the payload's values that its
    /// parameters take.
    private func prepare(_ delivery: ClaimedDelivery) throws(SignalError) -> (Handler, PostContext) {
        try Self.prepare(delivery, registry: registry)
    }

    /// A delivery's handler rebuilt from its document under `registry`, with the payload's values
    /// that its parameters take, and the post's context the payload carries; the errors a delivery
    /// gets (`SignalStoreInspector` checks stored handlers with it).
    static func prepare(
        _ delivery: ClaimedDelivery, registry: HandlerRegistry
    ) throws(SignalError) -> (Handler, PostContext) {
        let handler = try rebuild(delivery.handler, table: "deliveries", key: delivery.key.rawValue, registry: registry)
        let payload: HandlerValue
        do {
            payload = try HandlerValue(json: Data(delivery.payload))
        } catch {
            throw .malformedRecord(
                table: "deliveries", key: delivery.key.rawValue, column: "payload", reason: "\(error)")
        }
        guard case .object(let members) = payload else {
            throw .malformedRecord(
                table: "deliveries", key: delivery.key.rawValue, column: "payload",
                reason: "expected a JSON object, found \(payload.kindDescription)")
        }
        let parameters = Set(registry.descriptor(for: handler.id)?.parameters.map(\.name) ?? [])
        var bindings = HandlerBindings()
        for name in members.keys.sorted() where parameters.contains(name) {
            if let value = members[name], value != .null { bindings.bind(name, value) }
        }
        do {
            try handler.bind(bindings)
        } catch {
            throw .invalidPayload(
                signal: delivery.signalID, argument: Self.argument(of: error) ?? "?",
                reason: "revision \(delivery.revision) does not fit the consumer's handler: \(error)")
        }
        return (handler, PostContext(members: members))
    }

    /// A consumer's handler rebuilt from its `document` (stored in `table` under `key`) under `registry`.
    static func rebuild(
        _ document: [UInt8], table: String, key: String, registry: HandlerRegistry
    ) throws(SignalError) -> Handler {
        do {
            return try Handler(json: document, registry: registry)
        } catch HandlerError.unknownHandler(let id, _), HandlerError.noHandlersRegistered(let id, _) {
            throw .handlerNotRegistered(handler: id, delivery: key)
        } catch {
            throw .malformedRecord(
                table: table, key: key, column: "handler",
                reason: "the consumer's handler cannot be rebuilt in this process: \(error)")
        }
    }

    /// Whether `error` says the handler's arguments did not fit (a missing or mistyped argument):
    /// the same delivery would fail again.
    private static func isArgumentError(_ error: any Error, of handler: Handler) -> Bool {
        switch error as? HandlerError {
        case .missingArgument(let id, _, _)?, .typeMismatch(let id, _, _, _, _)?, .notBindable(let id, _, _)?:
            id == handler.id
        default: false
        }
    }

    private static func argument(of error: HandlerError) -> String? {
        switch error {
        case .typeMismatch(_, let argument, _, _, _), .notBindable(_, let argument, _),
            .unknownArgument(_, let argument, _),
            .missingArgument(_, let argument, _), .encodingFailed(_, let argument, _):
            argument
        default: nil
        }
    }

    /// Runs a store operation that settles a delivery whose handler ran (or could not be made),
    /// trying again while the store is busy (the operation checks the claim, so trying again never
    /// settles it twice). While the center is suspended, it waits for `resume()` (or `stop()`)
    /// first: a suspended center touches no file of the store. Other errors are thrown; the delivery
    /// then stays claimed by this run and runs again after the run ends.
    private func settle(_ operation: () async throws(SignalError) -> Void) async throws(SignalError) {
        var wait = Duration.milliseconds(5)
        while true {
            await enterSettlement()
            do {
                defer { state.withLock { $0.storeCalls -= 1 } }
                return try await operation()
            } catch .storeBusy(let path, let what, let waited) {
                if isStopped { throw .storeBusy(path: path, operation: what, waitedSeconds: waited) }
                report(.storeBusy(path: path, operation: what, waitedSeconds: waited))
                try? await Task.sleep(for: wait)
                wait = min(wait * 2, .seconds(1))
            }
        }
    }

    /// Waits while the center is suspended, then counts a store call in progress.
    private func enterSettlement() async {
        await passGate(
            while: { state in
                let graceEnded = state.graceEnds.map { $0 <= .now } ?? false
                return (state.phase == .suspended || state.phase == .draining && graceEnded) && !state.stopped
            },
            entering: { $0.storeCalls += 1 })
    }
}
