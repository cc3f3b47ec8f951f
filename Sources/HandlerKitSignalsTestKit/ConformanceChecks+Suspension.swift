import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The checks of suspending and resuming a run (`SignalStore.suspendRun` and `resumeRun`).
extension ConformanceChecks {
    static let suspensionChecks: [SignalStoreConformance.Check] = [
        .init(
            name: "suspending gives back claims not started, uncounted; resumed as the same run, it delivers them",
            body: suspendGivesBackClaims),
        .init(
            name: "a suspended run is taken over like a dead one; resumed, the center carries on as a new run",
            body: suspendedRunTakenOver),
        .init(
            name: "a taker that is no longer recorded takes nothing over; a recorded one then takes the run over",
            body: goneTakerTakesNothingOver),
        .init(
            name: "a handler running past the grace period completes after resume when the run was not taken over",
            body: handlerPastGraceCompletesAfterResume),
        .init(
            name: "a handler running past the grace period runs again at the taker, with its key; completed once",
            body: handlerPastGraceRunsAgainAtTaker),
    ]

    static func suspendGivesBackClaims(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        _ = try await center.register(try c.handler("Sink.receive"), for: "a")
        _ = try await center.post("a", payload: ["item": 1])
        let claimed = try await c.store.claim(for: center.runID, limit: 10)
        try c.expectEqual(claimed.count, 1, "claimed deliveries")
        try c.expectEqual(try await c.store.start(claimed[0]), .started, "starting it (its handler does not run)")
        let runID = center.runID
        let suspension = try await center.suspend(finishingWithin: .seconds(1))
        try c.expectEqual(suspension.claimsGivenBack, 1, "claims given back")
        try c.expectEqual(suspension.handlersStillRunning, [], "handlers still running")
        try c.expect(center.isSuspended, "the center is suspended")
        try c.expectEqual(
            try await c.store.start(claimed[0]), .claimLost, "starting the claim the suspension gave back")
        let again = try await center.suspend(finishingWithin: .zero)
        try c.expect(again.wasSuspended && again.claimsGivenBack == 0, "suspending again does nothing, found \(again)")

        // Another component's run does not take it over.
        let other = try await c.center("other")
        try c.expectEqual(other.takeover, TakeoverReport(), "what another component took over")
        try await other.stop()

        let resumed = try await center.resume()
        try c.expect(!resumed.wasTakenOver && resumed.runID == runID, "resumed as the same run, found \(resumed)")
        try c.expect(!center.isSuspended, "the center is active again")
        try c.expectEqual(try await center.deliverDue(), 1, "deliveries completed after resuming")
        let completions = try await c.store.completions(of: claimed[0].key)
        try c.expectEqual(completions.map(\.attempt), [1], "attempts of the completion (the given-back one uncounted)")
        let notSuspended = try await center.resume()
        try c.expect(!notSuspended.wasSuspended, "resuming an active center does nothing, found \(notSuspended)")
        try await center.stop()
        try c.expectEqual(try await c.store.statistics(), .only(completions: 1), "what is left")
    }

    static func suspendedRunTakenOver(_ c: ConformanceContext) async throws {
        let first = try await c.center("app")
        _ = try await first.register(try c.handler("Sink.receive"), for: "durable")
        let runTied = try await first.register(try c.handler("Sink.receive"), for: "tied", lifetime: .run)
        let suspendedRun = first.runID
        _ = try await first.suspend(finishingWithin: .seconds(1))
        let refused = try await c.error("posting while suspended") {
            _ = try await first.post("durable", payload: ["item": 1])
        }
        try c.expectEqual(
            refused, .suspended(component: "app", runID: suspendedRun), "the error of a call while suspended")

        let taker = try await c.center("app")
        try c.expectEqual(taker.takeover.deadRuns, [suspendedRun], "runs taken over")
        try c.expectEqual(taker.takeover.adoptedConsumers, 1, "durable consumers adopted")
        try c.expectEqual(taker.takeover.removedConsumers, 1, "run-tied consumers removed")
        _ = try await taker.post("durable", payload: ["item": 2])
        try c.expectEqual(try await taker.deliverDue(), 1, "deliveries completed by the taker")

        let resumed = try await first.resume()
        try c.expect(resumed.wasTakenOver, "the resume reports the takeover, found \(resumed)")
        try c.expectEqual(resumed.suspendedRunID, suspendedRun, "the suspended run")
        try c.expect(resumed.runID != suspendedRun && first.runID == resumed.runID, "a new run id")
        try c.expectEqual(resumed.removedRunConsumers, [runTied], "run-tied consumers gone")
        try c.expectEqual(try await first.deliverDue(), 0, "deliveries of the new run")
        try c.expectEqual(try await c.store.runs(of: "app").recorded, [taker.runID, first.runID], "recorded runs")
        try await first.stop()
        try await taker.stop()
        try c.expectEqual(c.recorder.all.map(\.item), [2], "handler runs")
    }

    static func goneTakerTakesNothingOver(_ c: ConformanceContext) async throws {
        let first = try await c.center("app")
        _ = try await first.register(try c.handler("Sink.receive"), for: "durable")
        let suspendedRun = first.runID
        _ = try await first.suspend(finishingWithin: .seconds(1))

        // A run that ended (as one taken over by another would be): its record is gone.
        let gone = "gone-\(UUID().uuidString)"
        let now = Date().timeIntervalSince1970
        try await c.store.beginRun(gone, component: "app", applying: .startRun(now: now))
        try await c.store.endRun(
            gone, component: "app", applying: .retire(gone, takenOverBy: nil, retry: RetryPolicy(), now: now))
        let plan = StorePlan.retire(suspendedRun, takenOverBy: gone, retry: RetryPolicy(), now: now)
        try c.expect(
            try await c.store.takeOver(suspendedRun, of: "app", applying: plan) == nil,
            "a takeover by a run that is not recorded changes nothing")
        try c.expectEqual(
            try await c.store.consumers(of: "app").map(\.runID), [suspendedRun], "the runs of the consumers")
        try c.expectEqual(try await c.store.runs(of: "app").recorded, [suspendedRun], "recorded runs")

        let taker = try await c.center("app")
        try c.expectEqual(taker.takeover.deadRuns, [suspendedRun], "runs taken over by a recorded taker")
        try c.expectEqual(taker.takeover.adoptedConsumers, 1, "durable consumers adopted")
        let resumed = try await first.resume()
        try c.expect(resumed.wasTakenOver, "the resume reports the takeover, found \(resumed)")
        try await first.stop()
        try await taker.stop()
    }

    /// Starts delivering one `Sink.held` delivery in a task, and suspends once its handler started,
    /// with a grace period of 10 ms: the handler still runs then, until the test releases it.
    private static func suspendDuringHeldHandler(
        _ c: ConformanceContext, _ center: SignalCenter
    ) async throws -> (Task<Int, any Error>, SuspensionReport) {
        _ = try await center.register(try c.handler("Sink.held"), for: "held")
        _ = try await center.post("held")
        let ended = Locked<Result<Int, any Error>?>(nil)
        let delivering = Task {
            do {
                let delivered = try await center.deliverDue()
                ended.withLock { $0 = .success(delivered) }
                return delivered
            } catch {
                ended.withLock { $0 = .failure(error) }
                throw error
            }
        }
        // A generous bound: a loaded machine or a slow server can take seconds to claim and start.
        let began = ContinuousClock.now
        while !c.recorder.all.contains(where: { $0.note == "started" }) {
            if let result = ended.withLock({ $0 }) {
                try c.expect(false, "the delivering pass ended before the held handler started, with \(result)")
            }
            try c.expect(began.duration(to: .now) < .seconds(120), "the held handler starts within 120 s")
            try await Task.sleep(for: .milliseconds(2))
        }
        let suspension = try await center.suspend(finishingWithin: .milliseconds(10))
        try c.expectEqual(suspension.handlersStillRunning.count, 1, "handlers still running at the deadline")
        try c.expectEqual(suspension.claimsGivenBack, 0, "claims given back")
        return (delivering, suspension)
    }

    static func handlerPastGraceCompletesAfterResume(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        let (delivering, suspension) = try await suspendDuringHeldHandler(c, center)
        let key = try c.require(suspension.handlersStillRunning.first, "the running delivery")
        c.recorder.releaseHeldHandlers()
        try await waitForFinishedHandlers(c, 1)
        try c.expectEqual(try await c.store.completions(of: key), [], "completions while suspended")
        let resumed = try await center.resume()
        try c.expect(!resumed.wasTakenOver, "resumed as the same run, found \(resumed)")
        try c.expectEqual(try await delivering.value, 1, "deliveries completed by the pass that ran it")
        try c.expectEqual(
            try await c.store.completions(of: key).map(\.runID), [center.runID], "completions of the delivery")
        try await center.stop()
        try c.expectEqual(try await c.store.statistics(), .only(completions: 1), "what is left")
    }

    static func handlerPastGraceRunsAgainAtTaker(_ c: ConformanceContext) async throws {
        let retry = RetryPolicy(firstDelay: .milliseconds(1))
        let first = try await c.center("app", retry: retry)
        let (delivering, suspension) = try await suspendDuringHeldHandler(c, first)
        let key = try c.require(suspension.handlersStillRunning.first, "the running delivery")
        let taker = try await c.center("app", retry: retry)
        try c.expectEqual(taker.takeover.interruptedDeliveries, 1, "interrupted deliveries taken over")
        // The first handler returns while its run is suspended and taken over; the taker's runs at once.
        c.recorder.releaseHeldHandlers()
        try await waitForFinishedHandlers(c, 1)
        try await Task.sleep(for: .milliseconds(20))
        try c.expectEqual(try await taker.deliverDue(), 1, "deliveries completed by the taker")
        let resumed = try await first.resume()
        try c.expect(resumed.wasTakenOver, "the resume reports the takeover, found \(resumed)")
        try c.expectEqual(try await delivering.value, 0, "deliveries completed by the suspended pass")
        let completions = try await c.store.completions(of: key)
        try c.expectEqual(completions.map(\.runID), [taker.runID], "completions of the delivery")
        try c.expectEqual(completions.map(\.attempt), [2], "attempt of the completion (the interrupted one counted)")
        let runs = c.recorder.all.filter { $0.note == "started" }
        try c.expectEqual(runs.map(\.deliveryKey), [key.rawValue, key.rawValue], "handler runs, with the same key")
        try await first.stop()
        try await taker.stop()
    }

    /// Returns once `count` handlers recorded their end (within a generous bound).
    private static func waitForFinishedHandlers(_ c: ConformanceContext, _ count: Int) async throws {
        let began = ContinuousClock.now
        while c.recorder.all.filter({ $0.note == "finished" }).count < count {
            try c.expect(began.duration(to: .now) < .seconds(120), "\(count) handlers return within 120 s")
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
