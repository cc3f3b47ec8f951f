import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit
import SignalsTestSupport
import TestWaiting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Suspending and resuming a center in one process, in memory and on SQLite: calls while
/// suspended, repeated calls, stopping while suspended, automatic delivery around a suspension.
@Suite("Signals: suspending and resuming a center")
struct SuspensionTests {
    let folder = TemporaryFolder()
    let recorder = Recorder()

    func handler(_ registry: HandlerRegistry) throws -> Handler {
        try Handler(id: "Sink.receive", registry: registry)
    }

    @Test(arguments: [StoreKind.memory, .sqlite])
    func everyCallOfASuspendedCenterThrowsSuspendedAndChangesNothing(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let registry = try makeRegistry(recorder)
        let center = try await manualCenter("app", store: store, registry: registry)
        let consumer = try await center.register(try handler(registry), for: "a")
        _ = try await center.post("a", payload: ["item": 1])
        let before = try await store.statistics()
        _ = try await center.suspend(finishingWithin: .seconds(1))
        #expect(center.isSuspended)

        let suspended = SignalError.suspended(component: "app", runID: center.runID)
        let calls: [(String, () async throws -> Void)] = [
            ("post", { _ = try await center.post("a", payload: ["item": 2]) }),
            ("register", { _ = try await center.register(try handler(registry), for: "b") }),
            ("remove", { _ = try await center.remove(consumer) }),
            ("consumers", { _ = try await center.consumers() }),
            ("deliverDue", { _ = try await center.deliverDue() }),
            ("openDeliveries", { _ = try await center.openDeliveries() }),
            ("deadDeliveries", { _ = try await center.deadDeliveries() }),
            ("requeue", { _ = try await center.requeue(DeliveryKey("\(consumer)/1")) }),
            ("takeOverDeadRuns", { _ = try await center.takeOverDeadRuns() }),
        ]
        for (name, call) in calls {
            await #expect(throws: suspended, "\(name)") { try await call() }
        }
        #expect(suspended.description.contains("call resume() first"), "\(suspended)")
        #expect(try await store.statistics() == before, "nothing changed")
        #expect(recorder.all.isEmpty, "no handler ran")

        _ = try await center.resume()
        #expect(try await center.deliverDue() == 1)
        try await center.stop()
    }

    @Test(arguments: [StoreKind.memory, .sqlite])
    func suspendingTwiceAndResumingAnActiveCenterAreHarmless(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let center = try await manualCenter("app", store: store, registry: try makeRegistry(recorder))
        let runID = center.runID
        let notSuspended = try await center.resume()
        #expect(!notSuspended.wasSuspended && notSuspended.runID == runID && !notSuspended.wasTakenOver)

        let first = try await center.suspend(finishingWithin: .seconds(1))
        #expect(!first.wasSuspended && first.runID == runID)
        let second = try await center.suspend(finishingWithin: .seconds(1))
        #expect(second.wasSuspended && second.claimsGivenBack == 0)

        let resumed = try await center.resume()
        #expect(resumed.wasSuspended && !resumed.wasTakenOver && resumed.runID == runID)
        let again = try await center.resume()
        #expect(!again.wasSuspended)
        #expect(!center.isSuspended)
        try await center.stop()
        #expect(try await store.statistics().runs == 0)
    }

    @Test(arguments: [StoreKind.memory, .sqlite])
    func stoppingASuspendedCenterEndsItsRun(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let registry = try makeRegistry(recorder)
        let center = try await manualCenter("app", store: store, registry: registry)
        _ = try await center.register(try handler(registry), for: "tied", lifetime: .run)
        _ = try await center.register(try handler(registry), for: "durable")
        _ = try await center.suspend(finishingWithin: .seconds(1))
        try await center.stop()
        let left = try await store.statistics()
        #expect(left.runs == 0 && left.consumers == 1, "the run ended: \(left)")
        await #expect(throws: SignalError.centerStopped(component: "app", runID: center.runID)) {
            _ = try await center.resume()
        }
        await #expect(throws: SignalError.centerStopped(component: "app", runID: center.runID)) {
            _ = try await center.suspend(finishingWithin: .zero)
        }
        try await center.stop()  // harmless
    }

    @Test(arguments: [StoreKind.memory, .sqlite])
    func stoppingASuspendedCenterThatWasTakenOverMakesNoNewRun(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let registry = try makeRegistry(recorder)
        let center = try await manualCenter("app", store: store, registry: registry)
        _ = try await center.register(try handler(registry), for: "durable")
        _ = try await center.suspend(finishingWithin: .seconds(1))
        let taker = try await manualCenter("app", store: store, registry: registry)
        #expect(taker.takeover.deadRuns == [center.runID])
        try await center.stop()
        #expect(try await store.runs(of: "app").recorded == [taker.runID])
        #expect(!center.isSuspended, "a stopped center is not suspended")
        #expect(try await center.deadDeliveries().isEmpty, "a stopped center still reads the store")
        try await taker.stop()
    }

    @Test(arguments: [StoreKind.memory, .sqlite])
    func anAutomaticCenterDeliversNothingWhileSuspendedAndCatchesUpWhenResumed(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let registry = try makeRegistry(recorder)
        let center = try await SignalCenter.start(component: "app", store: store, registry: registry)
        _ = try await center.register(try handler(registry), for: "a", delivery: .everyRevision)
        let poster = try await manualCenter("sync", store: store, registry: registry)
        _ = try await poster.post("a", payload: ["item": 1])
        try await waitUntil { recorder.all.count == 1 }

        _ = try await center.suspend(finishingWithin: .seconds(1))
        _ = try await poster.post("a", payload: ["item": 2])
        try await Task.sleep(for: .milliseconds(200))
        #expect(recorder.all.map(\.item) == [1], "nothing is delivered while suspended")

        let resumed = try await center.resume()
        #expect(!resumed.wasTakenOver)
        try await waitUntil { recorder.all.count == 2 }
        #expect(recorder.all.map(\.item) == [1, 2])
        try await poster.stop()
        try await center.stop()
    }

    /// A taker holds the suspended run's lock file (as it does during its takeover): `resume` waits
    /// for it, and then decides by the run's record, not by the lock file.
    @Test(arguments: [true, false])
    func resumeWaitsForATakerHoldingTheRunLockThenGoesByTheRunsRecord(takenOver: Bool) async throws {
        let store = try StoreKind.sqlite.open(folder.path)
        let center = try await manualCenter("app", store: store, registry: try makeRegistry(recorder))
        let runID = center.runID
        _ = try await center.suspend(finishingWithin: .seconds(1))
        let lockPath = folder.path + "/signals.sqlite.runs/\(runID).lock"
        let fd = open(lockPath, O_RDWR | O_CLOEXEC)
        try #require(fd >= 0, "the suspended run's lock file stays")
        try #require(flock(fd, LOCK_EX | LOCK_NB) == 0, "the suspended run's lock is free")

        let returned = Locked(false)
        let resuming = Task {
            defer { returned.withLock { $0 = true } }
            return try await center.resume()
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(!returned.withLock { $0 }, "resume waits while the taker holds the lock")
        if takenOver {
            // What a taker does while it holds the lock: retire the run, then remove its lock file.
            let plan = StorePlan.retire(
                runID, takenOverBy: "taker", retry: RetryPolicy(), now: Date().timeIntervalSince1970)
            _ = try await store.apply(plan)
            unlink(lockPath)
        }
        close(fd)
        let report = try await resuming.value
        #expect(report.wasTakenOver == takenOver, "\(report)")
        #expect((center.runID == runID) == !takenOver)
        #expect(try await store.runs(of: "app").recorded == [center.runID])
        try await center.stop()
    }

    /// Waits until `condition` holds (a generous, scaled bound: TestWait); not a timing assertion.
    func waitUntil(
        _ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await TestWait.until(
            "the deliveries the test expects (\(sourceLocation))", seen: { "recorded \(recorder.all)" }
        ) { condition() }
    }
}
