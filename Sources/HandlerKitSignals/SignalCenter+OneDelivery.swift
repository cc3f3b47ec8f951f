import Foundation
import HandlerKit
import Logging
import Tracing

/// What became of one claimed delivery.
enum Delivered {
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

extension SignalCenter {
    /// What marking a delivery started found, and when the mark was asked for.
    typealias Mark = (outcome: StartOutcome, asked: ContinuousClock.Instant)

    /// Runs one claimed delivery's handler and completes it (marking `next` started in the same
    /// transaction), retries it later or parks it as dead. `marked` is this delivery's mark when the
    /// previous completion made it; a mark older than a second is made again.
    func deliver(
        _ delivery: ClaimedDelivery, marked: Mark?, next: ClaimedDelivery?, generation: Int
    ) async throws(SignalError) -> (Delivered, Mark?) {
        let outcome = try await deliver(delivery, marked: marked, next: next, inGroup: false, generation: generation)
        return (outcome.delivered, outcome.mark)
    }

    /// Runs one claimed delivery of the component's work queue, as a worker of the queue: its
    /// completion goes in the next group commit (``CompletionGroup``), which claims the worker's
    /// next delivery with it (answered with its mark).
    func deliverFromQueue(
        _ delivery: ClaimedDelivery, marked: Mark?, generation: Int
    ) async throws(SignalError) -> (Delivered, next: (delivery: ClaimedDelivery, marked: Mark?)?) {
        let outcome = try await deliver(delivery, marked: marked, next: nil, inGroup: true, generation: generation)
        return (outcome.delivered, outcome.following)
    }

    /// What became of a delivery: the mark of `next`, made with its completion, and for a delivery
    /// completed in a group, the next delivery claimed for its worker.
    private typealias Outcome = (
        delivered: Delivered, mark: Mark?, following: (delivery: ClaimedDelivery, marked: Mark?)?
    )

    private func deliver(
        _ delivery: ClaimedDelivery, marked: Mark?, next: ClaimedDelivery?, inGroup: Bool, generation: Int
    ) async throws(SignalError) -> Outcome {
        do {
            let outcome = try await deliverClaimed(
                delivery, marked: marked, next: next, inGroup: inGroup, generation: generation)
            // Settled, given back, lost, or left for the run's end: no longer held here, unless held
            // for a task that awaits its promise.
            if outcome.delivered != .held { state.withLock { $0.claims.settled(delivery) } }
            return outcome
        } catch {
            // The store failed to start, release or settle it: it may stay claimed by the run, with no
            // one to run it. The next claim takes it back (`HeldClaims`).
            state.withLock { state in
                state.claims.settled(delivery)
                state.claims.failed()
            }
            throw error
        }
    }

    private func deliverClaimed(
        _ delivery: ClaimedDelivery, marked: Mark?, next: ClaimedDelivery?, inGroup: Bool, generation: Int
    ) async throws(SignalError) -> Outcome {
        guard state.withLock({ $0.lifecycle.allows(generation) }) else { return (.passEnded, nil, nil) }
        options.faultHook?(.afterClaim)
        if let handedOver = try await handToAwaitingTask(delivery, next: next, generation: generation) {
            return (handedOver.0, handedOver.1, nil)
        }
        guard let (handler, context) = try await prepareOrPark(delivery) else { return (.notCompleted, nil, nil) }
        if let missing = options.context.missingValue(of: handler, in: registry) {
            try await releaseForMissingValue(delivery, handler: handler, missing: missing)
            return (.notCompleted, nil, nil)
        }
        if let fenced = try await startFence(delivery, marked: marked, generation: generation) {
            return (fenced, nil, nil)
        }
        // From here until it is settled the delivery counts as running: a suspension keeps its claim.
        let runs = state.withLock {
            $0.lifecycle.handlerStarting(row: delivery.rowID, key: delivery.key, generation: generation)
        }
        guard runs else { return (.passEnded, nil, nil) }
        defer { state.withLock { $0.lifecycle.handlerSettled(row: delivery.rowID) } }
        if let error = await callHandler(handler, for: delivery, context: context) {
            try await releaseAfterThrow(delivery, handler: handler, error: error)
            return (.notCompleted, nil, nil)
        }
        options.faultHook?(.beforeCompletion)
        if inGroup {
            let completion = try await completeInGroup(delivery, generation: generation)
            return (completion.completed ? .completed : .notCompleted, nil, completion.next)
        }
        let (delivered, mark) = try await complete(delivery, next: next, generation: generation)
        return (delivered, mark, nil)
    }

    /// Hands the delivery to a task of this process that awaits the promise it settles, instead of
    /// its fallback handler; holds a settlement of a promise this center made, that none of its
    /// tasks awaits yet, for the one that will. `nil` when no task takes it: the handler runs.
    private func handToAwaitingTask(
        _ delivery: ClaimedDelivery, next: ClaimedDelivery?, generation: Int
    ) async throws(SignalError) -> (Delivered, Mark?)? {
        var waiter = promiseWaiters.take(for: delivery)
        if waiter == nil {
            if promiseWaiters.hold(delivery, generation: generation) { return (.held, nil) }
            // A task that began to await between the two looks ended the reservation: it takes it.
            waiter = promiseWaiters.take(for: delivery)
        }
        guard let waiter else { return nil }
        let asked = ContinuousClock.now
        var handed = CompletionOutcome(completed: false, next: nil)
        do {
            // Like a completion: a suspension waits for it, and it waits for `resume()` once suspended.
            try await settle { () throws(SignalError) in
                let marking = self.state.withLock { $0.lifecycle.allows(generation) } ? next : nil
                handed = try await self.store.complete(delivery, endingConsumer: true, thenStarting: marking)
            }
        } catch {
            waiter.giveBack()
            throw error
        }
        if handed.completed { waiter.handOver(delivery.payload) } else { waiter.giveBack() }
        return (handed.completed ? .completed : .notCompleted, handed.next.map { ($0, asked) })
    }

    /// The delivery's handler rebuilt, with its arguments bound, and the post's context; `nil` when
    /// that cannot be done here, and the delivery was parked as dead (retrying cannot help: the
    /// handler cannot be rebuilt here or the payload does not fit it).
    private func prepareOrPark(_ delivery: ClaimedDelivery) async throws(SignalError) -> (Handler, PostContext)? {
        do {
            return try prepare(delivery)
        } catch {
            var released = false
            try await settle { () throws(SignalError) in
                released = try await self.store.release(delivery, reason: error.description, retryAt: nil)
            }
            if released { recordDead(delivery, handler: nil, reason: error.description) }
            return nil
        }
    }

    /// The start fence: marks the delivery's attempt started in the store, right before its handler
    /// is called, unless the previous completion marked it less than a second ago. `nil` when the
    /// handler may start; otherwise what became of the delivery.
    private func startFence(
        _ delivery: ClaimedDelivery, marked: Mark?, generation: Int
    ) async throws(SignalError) -> Delivered? {
        let outcome: StartOutcome
        if let marked, marked.outcome != .started || marked.asked.duration(to: .now) <= .seconds(1) {
            outcome = marked.outcome
        } else {
            guard let made = try await markStarted(delivery, generation: generation) else { return .passEnded }
            outcome = made
        }
        switch outcome {
        case .started: return nil
        case .claimLost: return .notCompleted
        case .runTakenOver: return .runTakenOver
        }
    }

    /// Calls the delivery's handler in a span of its own, with its latency and duration measured;
    /// the error it threw, if any.
    private func callHandler(
        _ handler: Handler, for delivery: ClaimedDelivery, context: PostContext
    ) async -> (any Error)? {
        let startedAt = Date()
        if let posted = context.posted {
            metrics.latency.recordNanoseconds(Int64(max(0, startedAt.timeIntervalSince(posted)) * 1e9))
        }
        log(.trace, "delivery started", Self.metadata(of: delivery))
        let span = startDeliverySpan(delivery, context: context)
        let began = ContinuousClock.now
        do {
            try await ServiceContext.withValue(span.context) {
                try await handler.call(options.context.arguments(delivery: delivery, center: self))
            }
            metrics.handlerDuration.recordNanoseconds(began.duration(to: .now).nanoseconds)
            span.end()
            return nil
        } catch {
            metrics.handlerDuration.recordNanoseconds(began.duration(to: .now).nanoseconds)
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            span.end()
            return error
        }
    }

    /// Gives back a delivery whose handler threw: to run again later, or parked as dead when its
    /// arguments do not fit or its attempts are used up.
    private func releaseAfterThrow(
        _ delivery: ClaimedDelivery, handler: Handler, error: any Error
    ) async throws(SignalError) {
        let reason = "handler '\(handler.id)' threw on attempt \(delivery.attempt): \(error)"
        let retryAt = retryTime(of: delivery, handler: handler, error: error)
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
    }

    /// Gives back a delivery whose handler needs a value this process does not provide
    /// (``HandlerContext``), without calling it: reported as a problem, and retried (in this process
    /// or another) like an attempt that failed, dead once its attempts are used up.
    private func releaseForMissingValue(
        _ delivery: ClaimedDelivery, handler: Handler, missing: HandlerParameter
    ) async throws(SignalError) {
        let reason =
            "its parameter '\(missing.name)' (\(missing.typeName)) takes a value no post can carry, and this process's "
            + "center provides none: give it with SignalCenter.Options.context.provide(_:as: \"\(missing.name)\")"
        report(.invalidHandler(handler: handler.id, reason: reason))
        let retryAt =
            delivery.attempt >= options.retry.maximumAttempts
            ? nil : Date().addingTimeInterval(options.retry.delay(after: delivery.attempt).seconds)
        var released = false
        try await settle { () throws(SignalError) in
            released = try await self.store.release(
                delivery, reason: "handler '\(handler.id)' was not called on attempt \(delivery.attempt): \(reason)",
                retryAt: retryAt)
        }
        if released && retryAt == nil { recordDead(delivery, handler: handler.id, reason: reason) }
    }

    /// When a delivery whose handler threw `error` runs again; `nil` when it never does (its
    /// arguments do not fit, or it used up its attempts).
    private func retryTime(of delivery: ClaimedDelivery, handler: Handler, error: any Error) -> Date? {
        if Self.isArgumentError(error, of: handler) || delivery.attempt >= options.retry.maximumAttempts {
            return nil
        }
        return Date().addingTimeInterval(options.retry.delay(after: delivery.attempt).seconds)
    }

    /// Completes a delivery whose handler returned, marking `next` started in the same transaction
    /// while the pass may go on.
    private func complete(
        _ delivery: ClaimedDelivery, next: ClaimedDelivery?, generation: Int
    ) async throws(SignalError) -> (Delivered, Mark?) {
        let asked = ContinuousClock.now
        var result = CompletionOutcome(completed: false, next: nil)
        try await settle { () throws(SignalError) in
            // The next delivery is marked started only while this pass may go on.
            let marking = self.state.withLock { $0.lifecycle.allows(generation) } ? next : nil
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
                    guard state.withLock({ $0.lifecycle.allows(generation) }) else {
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

    /// Runs a store operation that settles a delivery whose handler ran (or could not be made),
    /// trying again while the store is busy (the operation checks the claim, so trying again never
    /// settles it twice). While the center is suspended, it waits for `resume()` (or `stop()`)
    /// first: a suspended center touches no file of the store. Other errors are thrown; the delivery
    /// may then stay claimed by this run, and the run's next claim takes it back (``deliver(_:marked:next:generation:)``).
    func settle(_ operation: () async throws(SignalError) -> Void) async throws(SignalError) {
        var wait = Duration.milliseconds(5)
        while true {
            await enterSettlement()
            do {
                defer { state.withLock { $0.lifecycle.storeCallEnded() } }
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
        await passGate { $0.settlementArrives(at: ContinuousClock.now) }
    }
}
