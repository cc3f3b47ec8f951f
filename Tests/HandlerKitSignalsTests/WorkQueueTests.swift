import Foundation
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import TestWaiting
import Testing

/// What one process's workers did: the items they ran, and the most handlers that ran at once.
private final class Workers: Sendable {
    private struct State {
        var items: [Int] = []
        var running = 0
        var mostAtOnce = 0
    }

    private let state = Locked(State())

    func started() {
        state.withLock { state in
            state.running += 1
            state.mostAtOnce = max(state.mostAtOnce, state.running)
        }
    }

    func finished(_ item: Int) {
        state.withLock { state in
            state.running -= 1
            state.items.append(item)
        }
    }

    var items: [Int] { state.withLock { $0.items } }
    var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }
}

@Suite("Signals: work queues")
struct WorkQueueTests {
    /// A registry whose `Queue.work` handler records into `workers`: each center gets its own, so
    /// that a test sees which center ran what.
    private static func registry(recordingInto workers: Workers) throws -> HandlerRegistry {
        try queueWorkRegistry { item in
            workers.started()
            try await Task.sleep(for: .milliseconds(5))
            workers.finished(item)
        }
    }

    private static func store(_ kind: String, in folder: TemporaryFolder) throws -> any SignalStore {
        kind == "memory" ? InMemorySignalStore() : try SQLiteSignalStore(path: folder.path + "/signals.sqlite")
    }

    @Test(arguments: ["memory", "sqlite"])
    func twoProcessesShareTheWorkEachRunningUpToItsLimit(_ kind: String) async throws {
        let folder = TemporaryFolder()
        let store = try Self.store(kind, in: folder)
        let (first, second) = (Workers(), Workers())
        let one = try await SignalCenter.start(
            component: "thumbs", store: store, registry: try Self.registry(recordingInto: first),
            options: .init(queueConcurrency: 3))
        let other = try await SignalCenter.start(
            component: "thumbs", store: kind == "memory" ? store : try Self.store(kind, in: folder),
            registry: try Self.registry(recordingInto: second), options: .init(queueConcurrency: 3))
        let registry = try Self.registry(recordingInto: Workers())
        try await one.register(
            try Handler(id: "Queue.work", registry: registry), for: "thumbs.make", lifetime: .queue,
            delivery: .everyRevision)
        let results = try await one.post((1...300).map { SignalPost("thumbs.make", payload: ["item": $0]) })
        #expect(results.allSatisfy { $0.deliveries == 1 })
        try await TestWait.until(
            "every job run", seen: { "\(first.items.count) + \(second.items.count) run" }
        ) { first.items.count + second.items.count == 300 }
        #expect((first.items + second.items).sorted() == Array(1...300), "each job run once")
        #expect(!first.items.isEmpty && !second.items.isEmpty, "\(first.items.count) and \(second.items.count)")
        #expect(first.mostAtOnce <= 3 && second.mostAtOnce <= 3, "\(first.mostAtOnce) and \(second.mostAtOnce)")
        #expect(max(first.mostAtOnce, second.mostAtOnce) > 1, "no process ran two handlers at once")
        try await one.stop()
        try await other.stop()
    }

    @Test func deliverDueRunsTheQueueAndWaitsForItsWorkers() async throws {
        let workers = Workers()
        let center = try await SignalCenter.start(
            component: "thumbs", store: InMemorySignalStore(), registry: try Self.registry(recordingInto: workers),
            options: .init(deliversAutomatically: false, queueConcurrency: 2))
        try await center.register(
            try Handler(id: "Queue.work", registry: center.registry), for: "thumbs.make", lifetime: .queue,
            delivery: .everyRevision)
        _ = try await center.post((1...10).map { SignalPost("thumbs.make", payload: ["item": $0]) })
        #expect(try await center.deliverDue() == 10)
        #expect(workers.items.sorted() == Array(1...10))
        #expect(workers.mostAtOnce == 2)
        #expect(try await center.deliverDue() == 0)
        try await center.stop()
    }

    @Test func aQueueDeliveryPostedWhileTheProcessRunsWakesIt() async throws {
        let workers = Workers()
        let store = InMemorySignalStore()
        let center = try await SignalCenter.start(
            component: "thumbs", store: store, registry: try Self.registry(recordingInto: workers))
        try await center.register(
            try Handler(id: "Queue.work", registry: center.registry), for: "thumbs.make", lifetime: .queue,
            delivery: .everyRevision)
        // Another component posts; the queue's center wakes without a pass of its own.
        let poster = try await SignalCenter.start(component: "api", store: store, registry: HandlerRegistry())
        try await poster.post("thumbs.make", payload: ["item": 7])
        try await TestWait.until("the job run", seen: { "\(workers.items)" }) { workers.items == [7] }
        try await poster.stop()
        try await center.stop()
    }

    @Test func aStoppedProcessLeavesTheQueueToTheNext() async throws {
        let folder = TemporaryFolder()
        let path = folder.path + "/signals.sqlite"
        let workers = Workers()
        let registry = try Self.registry(recordingInto: workers)
        let first = try await SignalCenter.start(
            component: "thumbs", store: try SQLiteSignalStore(path: path), registry: registry,
            options: .init(deliversAutomatically: false))
        let queue = try await first.register(
            try Handler(id: "Queue.work", registry: registry), for: "thumbs.make", lifetime: .queue,
            delivery: .everyRevision)
        try await first.stop()
        let next = try await SignalCenter.start(
            component: "thumbs", store: try SQLiteSignalStore(path: path), registry: registry,
            options: .init(deliversAutomatically: false))
        #expect(
            next.takeover.deadRuns.isEmpty && next.takeover.endedRuns.isEmpty && next.takeover.adoptedConsumers == 0)
        let consumers = try await next.consumers()
        #expect(consumers.map(\.id) == [queue] && consumers.first?.lifetime == .queue)
        try await next.post("thumbs.make", payload: ["item": 1])
        #expect(try await next.deliverDue() == 1)
        try await next.stop()
    }
}
