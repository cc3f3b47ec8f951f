import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalsTestSupport
import TestWaiting
import Testing

/// An in-memory store that keeps the purpose of every program it runs, holds the first completion's
/// transaction until the test lets it go, and answers completions that the store is busy while told to.
private final class WatchedStore: ForwardingSignalStore {
    private struct State {
        var purposes: [String] = []
        var holding = false
        var held: CheckedContinuation<Void, Never>?
        var released = false
        var busy = false
    }

    let wrapped: any SignalStore = InMemorySignalStore()
    private let state = Locked(State())

    var purposes: [String] { state.withLock { $0.purposes } }
    var completions: [String] { purposes.filter { $0.hasPrefix("completing") } }
    var isHolding: Bool { state.withLock { $0.holding } }

    /// Whether completions find the store busy (`SignalError.storeBusy`).
    func setBusy(_ busy: Bool) { state.withLock { $0.busy = busy } }

    /// Lets the held completion commit.
    func release() {
        let held = state.withLock { state in
            state.released = true
            defer { state.held = nil }
            return state.held
        }
        held?.resume()
    }

    func perform<Result: Sendable>(_ program: StoreProgram<Result>) async throws(SignalError) -> Result {
        let (holds, busy) = state.withLock { state in
            state.purposes.append(program.purpose)
            let completing = program.purpose.hasPrefix("completing")
            guard completing, !state.busy, !state.released, !state.holding else {
                return (false, completing && state.busy)
            }
            state.holding = true
            return (true, false)
        }
        if busy { throw .storeBusy(path: location, operation: program.purpose, waitedSeconds: 0) }
        if holds {
            await withCheckedContinuation { continuation in
                let released = state.withLock { state in
                    if !state.released { state.held = continuation }
                    return state.released
                }
                if released { continuation.resume() }
            }
        }
        return try await wrapped.perform(program)
    }
}

@Suite("Signals: a work queue's completions committed in groups")
struct CompletionGroupTests {
    /// A registry whose `Queue.work` handler records the items it ran.
    private static func registry(recordingInto items: Locked<[Int]>) throws -> HandlerRegistry {
        try queueWorkRegistry { item in items.withLock { $0.append(item) } }
    }

    /// A center of component `thumbs` on `store` whose work queue takes `thumbs.make` with `Queue.work`.
    private static func queueCenter(
        on store: any SignalStore, registry: HandlerRegistry, options: SignalCenter.Options
    ) async throws -> SignalCenter {
        let center = try await SignalCenter.start(
            component: "thumbs", store: store, registry: registry, options: options)
        try await center.register(
            try Handler(id: "Queue.work", registry: registry), for: "thumbs.make", lifetime: .queue,
            delivery: .everyRevision)
        return center
    }

    @Test func completionsThatFinishWhileOneCommitsGoTogetherInTheNext() async throws {
        let store = WatchedStore()
        let items = Locked<[Int]>([])
        let arrived = Locked(0)
        var options = SignalCenter.Options(deliversAutomatically: false, queueConcurrency: 4)
        options.faultHook = { point in if point == .beforeCompletion { arrived.withLock { $0 += 1 } } }
        let center = try await Self.queueCenter(
            on: store, registry: try Self.registry(recordingInto: items), options: options)
        _ = try await center.post((1...4).map { SignalPost("thumbs.make", payload: ["item": $0]) })
        let delivering = Task { try await center.deliverDue() }
        // The first completion's transaction is held while the handlers return: the completions that
        // arrive meanwhile wait for it, and go together in the next.
        try await TestWait.until("four handlers returned, one completion held", seen: { "\(arrived.withLock { $0 })" })
        {
            store.isHolding && arrived.withLock { $0 } == 4
        }
        store.release()
        #expect(try await delivering.value == 4)
        #expect(items.withLock { $0 }.sorted() == [1, 2, 3, 4])
        let completions = store.completions
        #expect(completions.count < 4, "one transaction a completion: \(completions)")
        #expect(try await store.statistics().completions == 4)
        try await center.stop()
    }

    @Test func anIdleQueueCompletesEachDeliveryInOneTransaction() async throws {
        let store = WatchedStore()
        store.release()
        let items = Locked<[Int]>([])
        let center = try await Self.queueCenter(
            on: store, registry: try Self.registry(recordingInto: items),
            options: .init(deliversAutomatically: false, queueConcurrency: 4))
        for item in 1...3 {
            _ = try await center.post("thumbs.make", payload: ["item": item])
            #expect(try await center.deliverDue() == 1)
        }
        #expect(items.withLock { $0 } == [1, 2, 3])
        #expect(store.completions.count == 3 && store.completions.allSatisfy { $0.hasPrefix("completing delivery ") })
        try await center.stop()
    }

    @Test func aCompletionTriedAgainAfterASuspensionClaimsNothingForThePassBeforeIt() async throws {
        let store = WatchedStore()
        store.release()
        let items = Locked<[Int]>([])
        let center = try await Self.queueCenter(
            on: store, registry: try Self.registry(recordingInto: items),
            options: .init(deliversAutomatically: false, queueConcurrency: 1))
        _ = try await center.post((1...2).map { SignalPost("thumbs.make", payload: ["item": $0]) })
        // The first job's completion finds the store busy, and is tried again until it is not.
        store.setBusy(true)
        let first = Task { try await center.deliverDue() }
        try await TestWait.until("the first job's completion tried", seen: { "\(store.purposes)" }) {
            !store.completions.isEmpty
        }
        let suspension = try await center.suspend(finishingWithin: .milliseconds(50))
        #expect(suspension.handlersStillRunning.count == 1, "its settlement holds the delivery")
        store.setBusy(false)
        try await center.resume()
        #expect(try await first.value == 1)
        // The worker of the pass before the suspension took nothing with the completion: the second
        // job is left for the next pass.
        #expect(try await center.deliverDue() == 1)
        #expect(items.withLock { $0 } == [1, 2])
        let statistics = try await store.statistics()
        #expect(statistics.completions == 2 && statistics.claimedDeliveries == 0 && statistics.pendingDeliveries == 0)
        try await center.stop()
    }

    @Test func aCompletionThatWaitsOutASuspensionClaimsNothingForThePassBeforeIt() async throws {
        let store = WatchedStore()
        store.release()
        let items = Locked<[Int]>([])
        let (started, open) = (Locked(false), Locked(false))
        let registry = try queueWorkRegistry { item in
            started.withLock { $0 = true }
            while item == 1 && !open.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
            items.withLock { $0.append(item) }
        }
        let center = try await Self.queueCenter(
            on: store, registry: registry, options: .init(deliversAutomatically: false, queueConcurrency: 1))
        _ = try await center.post((1...2).map { SignalPost("thumbs.make", payload: ["item": $0]) })
        let first = Task { try await center.deliverDue() }
        try await TestWait.until("the first job's handler running") { started.withLock { $0 } }
        // Suspended while the first handler runs; it returns, and its completion waits for the resume.
        let suspension = try await center.suspend(finishingWithin: .milliseconds(50))
        #expect(suspension.handlersStillRunning.count == 1)
        open.withLock { $0 = true }
        try await center.resume()
        #expect(try await first.value == 1)
        #expect(try await store.statistics().completions == 1)
        // The second job was claimed by no worker of the pass before the suspension: the next pass runs it.
        #expect(try await center.deliverDue() == 1)
        #expect(items.withLock { $0 } == [1, 2])
        let statistics = try await store.statistics()
        #expect(statistics.claimedDeliveries == 0 && statistics.pendingDeliveries == 0)
        try await center.stop()
    }
}
