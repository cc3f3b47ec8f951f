import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalsTestSupport
import TestWaiting
import Testing

/// A handler that runs until the test lets it return, and what it did.
private final class HeldHandler: Sendable {
    private let state = Locked<(open: Bool, started: [String], returned: [String])>((false, [], []))

    var started: [String] { state.withLock { $0.started } }
    var returned: [String] { state.withLock { $0.returned } }
    func open() { state.withLock { $0.open = true } }

    func run(_ key: String) async {
        state.withLock { $0.started.append(key) }
        try? await TestWait.until("the test to let handler \(key) return", every: .milliseconds(2)) {
            state.withLock { $0.open }
        }
        state.withLock { $0.returned.append(key) }
    }
}

/// `SignalCenter.stop(finishingWithin:)` in one process, on every store kind that needs no server:
/// the handler that runs finishes within the grace period or is interrupted, the claims not started
/// are given back, and the run ends; the next run delivers the rest, each delivery completed once.
@Suite("Signals: a graceful stop")
struct GracefulStopTests {
    let folder = TemporaryFolder()
    private let held = HeldHandler()
    let registry = HandlerRegistry()

    init() throws {
        let held = held
        try registry.register(
            HandlerTable(
                module: "GracefulStop",
                handlers: [
                    HandlerDescriptor(
                        id: "Held.run", parameters: [.required("deliveryKey", String.self)],
                        invokeAsync: { arguments in await held.run(try arguments.required("deliveryKey")) })
                ]))
    }

    /// A center of `app` with consumers of `a` and `b`, both posted; a manual pass runs until the
    /// handler of the first delivery has started.
    private func startWithAHandlerRunning(_ store: any SignalStore) async throws -> SignalCenter {
        let center = try await manualCenter("app", store: store, registry: registry)
        for signal: SignalID in ["a", "b"] {
            try await center.register(try Handler(id: "Held.run", registry: registry), for: signal)
            try await center.post(signal)
        }
        Task { _ = try? await center.deliverDue() }
        try await TestWait.until("the first handler to start", every: .milliseconds(2)) { !held.started.isEmpty }
        return center
    }

    /// Delivers what is left in a new run of `app`; returns its takeover report.
    private func deliverTheRest(_ store: any SignalStore) async throws -> TakeoverReport {
        held.open()
        let next = try await manualCenter("app", store: store, registry: registry)
        var open = 0
        try await TestWait.until("the next run to deliver the rest", every: .milliseconds(2), seen: { "\(open) open" })
        {
            open = try await next.openDeliveries()
            if open == 0 { return true }
            _ = try await next.deliverDue()
            return false
        }
        try await next.stop()
        return next.takeover
    }

    @Test(arguments: [StoreKind.memory, .sqlite])
    func aHandlerThatReturnsWithinTheGracePeriodIsCompletedAndTheRestGivenBack(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let center = try await startWithAHandlerRunning(store)
        let runID = center.runID
        let stopping = Task { try await center.stop(finishingWithin: TestWait.bound(.seconds(60))) }
        // The handler returns once the stop has begun (the center no longer active), within the grace.
        try await TestWait.until("the stop to begin", every: .milliseconds(2)) { center.isSuspended }
        held.open()
        let report = try await stopping.value
        #expect(report.runID == runID && !report.wasStopped)
        #expect(report.handlersFinished == 1 && report.handlersInterrupted.isEmpty)
        #expect(report.claimsGivenBack == 1, "the second delivery, claimed with the first")
        #expect(try await !store.runs(of: "app").recorded.contains(runID), "the run ended")
        #expect(try await center.stop(finishingWithin: .seconds(1)).wasStopped)

        let takeover = try await deliverTheRest(store)
        #expect(takeover.interruptedDeliveries == 0)
        #expect(held.started.count == 2 && Set(held.started).count == 2, "each handler ran once")
        for key in held.started { #expect(try await store.completions(of: DeliveryKey(key)).count == 1) }
    }

    @Test(arguments: [StoreKind.memory, .sqlite])
    func aHandlerPastTheGracePeriodIsInterruptedAndItsDeliveryCompletedOnceByTheNextRun(
        kind: StoreKind
    ) async throws {
        let store = try kind.open(folder.path)
        let center = try await startWithAHandlerRunning(store)
        let first = try #require(held.started.first)
        let report = try await center.stop(finishingWithin: .milliseconds(20))
        #expect(report.handlersInterrupted == [DeliveryKey(first)] && report.handlersFinished == 0)
        #expect(try await !store.runs(of: "app").recorded.contains(report.runID), "the run ended")

        // The interrupted handler returns meanwhile: its completion is refused.
        _ = try await deliverTheRest(store)
        #expect(held.started.filter { $0 == first }.count == 2, "run again by the next run")
        let keys = Set(held.started)
        #expect(keys.count == 2)
        for key in keys { #expect(try await store.completions(of: DeliveryKey(key)).count == 1) }
        #expect(try await store.statistics().pendingDeliveries == 0)
    }
}
