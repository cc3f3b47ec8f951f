import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit
import Testing

/// What a center does with the rest of a claimed batch when the store fails to settle one delivery.
package struct SettleFailureScenarios {
    let folder = TemporaryFolder()
    let recorder = Recorder()
    let registry: HandlerRegistry

    package init() throws { registry = try makeRegistry(recorder) }

    package func theClaimsNotStartedAreGivenBackAndDeliveredByTheNextPass(kind: StoreKind) async throws {
        let store = FailingCompletionStore(try kind.open(folder.path))
        let center = try await manualCenter("app", store: store, registry: registry)
        _ = try await center.register(
            try Handler(id: "Sink.receive", registry: registry), for: "progress",
            delivery: .everyRevision)
        for item in 1...3 { _ = try await center.post("progress", payload: ["item": item]) }

        store.failNextCompletion()
        await #expect(throws: SignalError.self) { try await center.deliverDue() }
        // The first handler ran and its completion failed: it stays claimed by this run. The two
        // claims that had not started are pending again rather than held until the run ends.
        #expect(recorder.all.map(\.item) == [1])
        var statistics = try await store.statistics()
        #expect(statistics.claimedDeliveries == 1 && statistics.pendingDeliveries == 2)

        #expect(try await center.deliverDue() == 2)
        #expect(recorder.all.map(\.item) == [1, 2, 3])
        statistics = try await store.statistics()
        #expect(statistics.claimedDeliveries == 1 && statistics.pendingDeliveries == 0)
        try await center.stop()
    }
}

/// A store that throws `storeUnavailable` from `complete` once when told to, and otherwise forwards
/// every call to the store it wraps.
final class FailingCompletionStore: SignalStore {
    private let base: any SignalStore
    private let failing = Locked(false)

    init(_ base: any SignalStore) { self.base = base }

    func failNextCompletion() { failing.withLock { $0 = true } }

    var location: String { base.location }

    func complete(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, thenStarting next: ClaimedDelivery?
    ) async throws(SignalError) -> CompletionOutcome {
        if failing.withLock({ failing in
            defer { failing = false }
            return failing
        }) {
            throw .storeUnavailable(path: location, reason: "the test cut the store off")
        }
        return try await base.complete(delivery, endingConsumer: endingConsumer, thenStarting: next)
    }

    func beginRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) {
        try await base.beginRun(runID, component: component, applying: plan)
    }
    func endRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        try await base.endRun(runID, component: component, applying: plan)
    }
    func suspendRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) -> [Int] {
        try await base.suspendRun(runID, component: component, applying: plan)
    }
    func resumeRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> Bool {
        try await base.resumeRun(runID, component: component, applying: plan)
    }
    func takeOver(_ run: String, of component: String, applying plan: StorePlan) async throws(SignalError) -> [Int]? {
        try await base.takeOver(run, of: component, applying: plan)
    }
    func apply(_ plan: StorePlan) async throws(SignalError) -> [Int] { try await base.apply(plan) }
    func post(_ signalID: String, payload: [UInt8], keepUntil: Date?) async throws(SignalError) -> PostResult {
        try await base.post(signalID, payload: payload, keepUntil: keepUntil)
    }
    func claim(for runID: String, limit: Int, startingFirst: Bool) async throws(SignalError) -> ClaimedBatch {
        try await base.claim(for: runID, limit: limit, startingFirst: startingFirst)
    }
    func start(_ delivery: ClaimedDelivery) async throws(SignalError) -> StartOutcome {
        try await base.start(delivery)
    }
    func read<Value: Sendable>(_ read: StoreRead<Value>) async throws(SignalError) -> Value {
        try await base.read(read)
    }
    func makeWakeListener() throws(SignalError) -> any SignalWakeListener { try base.makeWakeListener() }
}
