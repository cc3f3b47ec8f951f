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

    /// A store that fails when told to, and a center with three deliveries due.
    func threeDeliveries(_ kind: StoreKind) async throws -> (FailingStore, SignalCenter) {
        let store = FailingStore(try kind.open(folder.path))
        let center = try await manualCenter("app", store: store, registry: registry)
        _ = try await center.register(
            try Handler(id: "Sink.receive", registry: registry), for: "progress",
            delivery: .everyRevision)
        for item in 1...3 { _ = try await center.post("progress", payload: ["item": item]) }
        return (store, center)
    }

    package func theClaimsNotStartedAreGivenBackAndDeliveredByTheNextPass(kind: StoreKind) async throws {
        let (store, center) = try await threeDeliveries(kind)

        store.failNextCompletion()
        await #expect(throws: SignalError.self) { try await center.deliverDue() }
        // The first handler ran and its completion failed: it stays claimed by this run. The two
        // claims that had not started are pending again rather than held until the run ends.
        #expect(recorder.all.map(\.item) == [1])
        var statistics = try await store.statistics()
        #expect(statistics.claimedDeliveries == 1 && statistics.pendingDeliveries == 2)

        // The next pass takes the first back (its handler runs again, with the same delivery key) and
        // delivers the two others.
        #expect(try await center.deliverDue() == 3)
        #expect(recorder.all.map(\.item) == [1, 1, 2, 3])
        #expect(recorder.all[0].deliveryKey == recorder.all[1].deliveryKey)
        statistics = try await store.statistics()
        #expect(statistics.claimedDeliveries == 0 && statistics.pendingDeliveries == 0)
        #expect(statistics.completions == 3)
        try await center.stop()
    }

    package func aClaimWhoseAnswerWasLostIsTakenBackByTheNextClaim(kind: StoreKind) async throws {
        let (store, center) = try await threeDeliveries(kind)

        // The store claims all three, and the answer does not reach the center.
        store.loseNextClaimAnswer()
        await #expect(throws: SignalError.self) { try await center.deliverDue() }
        #expect(recorder.all.isEmpty)
        var statistics = try await store.statistics()
        #expect(statistics.claimedDeliveries == 3 && statistics.pendingDeliveries == 0)

        // The next claim takes them back, as their next attempt, and each runs once.
        #expect(try await center.deliverDue() == 3)
        #expect(recorder.all.map(\.item) == [1, 2, 3])
        statistics = try await store.statistics()
        #expect(statistics.claimedDeliveries == 0 && statistics.completions == 3)
        let keys = try await store.completions(of: DeliveryKey(recorder.all[0].deliveryKey))
        #expect(keys.map(\.attempt) == [2], "the lost claim counted as the first attempt")
        try await center.stop()
    }
}

/// A store that throws `storeUnavailable` once when told to, from `complete` (changing nothing) or
/// after a claim (which the store made), and otherwise forwards every call to the store it wraps.
final class FailingStore: ForwardingSignalStore {
    let wrapped: any SignalStore
    private let failing = Locked(false)
    private let losingClaim = Locked(false)

    init(_ base: any SignalStore) { wrapped = base }

    func failNextCompletion() { failing.withLock { $0 = true } }
    func loseNextClaimAnswer() { losingClaim.withLock { $0 = true } }

    /// Fails the next completion (the core's completion program) when told to, and loses the answer
    /// of the next claim (made by the store).
    func perform<Result: Sendable>(_ program: StoreProgram<Result>) async throws(SignalError) -> Result {
        if case .complete? = program.shortcut, Self.take(failing) {
            throw .storeUnavailable(path: location, reason: "the test cut the store off")
        }
        let answer = try await wrapped.perform(program)
        if case .claim? = program.shortcut, Self.take(losingClaim) {
            throw .storeUnavailable(path: location, reason: "the test lost the claim's answer")
        }
        return answer
    }

    /// Whether `flag` was set; clears it.
    private static func take(_ flag: Locked<Bool>) -> Bool {
        flag.withLock { set in
            defer { set = false }
            return set
        }
    }
}
