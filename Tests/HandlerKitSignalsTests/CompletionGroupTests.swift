import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import SignalsTestSupport
import TestWaiting
import Testing

/// An in-memory store that keeps the purpose of every program it runs, and holds the first
/// completion's transaction until the test lets it go.
private final class WatchedStore: ForwardingSignalStore {
    private struct State {
        var purposes: [String] = []
        var holding = false
        var held: CheckedContinuation<Void, Never>?
        var released = false
    }

    let wrapped: any SignalStore = InMemorySignalStore()
    private let state = Locked(State())

    var purposes: [String] { state.withLock { $0.purposes } }
    var completions: [String] { purposes.filter { $0.hasPrefix("completing") } }
    var isHolding: Bool { state.withLock { $0.holding } }

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
        let holds = state.withLock { state in
            state.purposes.append(program.purpose)
            guard program.purpose.hasPrefix("completing"), !state.released, !state.holding else { return false }
            state.holding = true
            return true
        }
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
        let registry = HandlerRegistry()
        try registry.register(
            HandlerTable(
                module: "Queue",
                handlers: [
                    HandlerDescriptor(
                        id: "Queue.work", parameters: [.required("item", Int.self)],
                        invoke: { arguments in
                            let item: Int = try arguments.required("item")
                            items.withLock { $0.append(item) }
                        })
                ]))
        return registry
    }

    @Test func completionsThatFinishWhileOneCommitsGoTogetherInTheNext() async throws {
        let store = WatchedStore()
        let items = Locked<[Int]>([])
        let arrived = Locked(0)
        var options = SignalCenter.Options(deliversAutomatically: false, queueConcurrency: 4)
        options.faultHook = { point in if point == .beforeCompletion { arrived.withLock { $0 += 1 } } }
        let center = try await SignalCenter.start(
            component: "thumbs", store: store, registry: try Self.registry(recordingInto: items), options: options)
        try await center.register(
            try Handler(id: "Queue.work", registry: center.registry), for: "thumbs.make", lifetime: .queue,
            delivery: .everyRevision)
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
        let center = try await SignalCenter.start(
            component: "thumbs", store: store, registry: try Self.registry(recordingInto: items),
            options: .init(deliversAutomatically: false, queueConcurrency: 4))
        try await center.register(
            try Handler(id: "Queue.work", registry: center.registry), for: "thumbs.make", lifetime: .queue,
            delivery: .everyRevision)
        for item in 1...3 {
            _ = try await center.post("thumbs.make", payload: ["item": item])
            #expect(try await center.deliverDue() == 1)
        }
        #expect(items.withLock { $0 } == [1, 2, 3])
        #expect(store.completions.count == 3 && store.completions.allSatisfy { $0.hasPrefix("completing delivery ") })
        try await center.stop()
    }
}
