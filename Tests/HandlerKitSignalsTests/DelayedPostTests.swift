import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsSQLite
import SignalsTestSupport
import TestWaiting
import Testing

/// When a handler runs, and what it was given.
private final class Starts: Sendable {
    private let recorded = Locked<[(item: Int, at: Date)]>([])

    func add(_ item: Int) { recorded.withLock { $0.append((item, Date())) } }
    var all: [(item: Int, at: Date)] { recorded.withLock { $0 } }
}

@Suite("Signals: delayed posts")
struct DelayedPostTests {
    private let starts = Starts()
    private let registry = HandlerRegistry()

    init() throws {
        let starts = starts
        try registry.register(
            HandlerTable(
                module: "Delayed",
                handlers: [
                    HandlerDescriptor(
                        id: "Delayed.record", parameters: [.required("item", Int.self)],
                        invoke: { arguments in starts.add(try arguments.required("item")) })
                ]))
    }

    @Test(arguments: ["memory", "sqlite"])
    func aCenterThatDeliversByItselfWakesForADelayedDeliveryAtItsTime(_ kind: String) async throws {
        let folder = TemporaryFolder()
        let store: any SignalStore =
            kind == "memory" ? InMemorySignalStore() : try SQLiteSignalStore(path: folder.path + "/signals.sqlite")
        // After the post's own wake-up (the center finds nothing due), only the delivery's time wakes it.
        let center = try await SignalCenter.start(component: "app", store: store, registry: registry)
        try await center.register(try Handler(id: "Delayed.record", registry: registry), for: "reminder")
        let due = Date().addingTimeInterval(0.5)
        try await center.post("reminder", payload: ["item": 1], notBefore: due)
        try await TestWait.until("the delayed delivery", seen: { "\(starts.all.count) started" }) {
            !starts.all.isEmpty
        }
        let started = try #require(starts.all.first)
        #expect(started.item == 1)
        #expect(started.at >= due, "started \(due.timeIntervalSince(started.at)) s early")
        try await center.stop()
    }

    @Test func aTimeInThePastDeliversAtOnce() async throws {
        let center = try await SignalCenter.start(
            component: "app", store: InMemorySignalStore(), registry: registry,
            options: .init(deliversAutomatically: false))
        try await center.register(try Handler(id: "Delayed.record", registry: registry), for: "reminder")
        try await center.post("reminder", payload: ["item": 2], notBefore: Date().addingTimeInterval(-60))
        #expect(try await center.deliverDue() == 1)
        #expect(starts.all.map(\.item) == [2])
        try await center.stop()
    }

    @Test(arguments: [Double.infinity, -Double.infinity, Double.nan])
    func aTimeThatIsNoTimeIsRefusedAndNothingIsPosted(_ seconds: Double) async throws {
        let center = try await SignalCenter.start(
            component: "app", store: InMemorySignalStore(), registry: registry,
            options: .init(deliversAutomatically: false))
        try await center.register(try Handler(id: "Delayed.record", registry: registry), for: "reminder")
        let error = await #expect(throws: SignalError.self) {
            try await center.post("reminder", payload: ["item": 3], notBefore: Date(timeIntervalSince1970: seconds))
        }
        guard case .invalidDeliveryTime(let signal, let reason)? = error else {
            Issue.record("expected invalidDeliveryTime, got \(String(describing: error))")
            return
        }
        #expect(signal == "reminder" && reason.contains("not a finite time"))
        #expect(error?.description.contains("nothing was posted") == true)
        #expect(try await center.openDeliveries() == 0)
        try await center.stop()
    }
}
