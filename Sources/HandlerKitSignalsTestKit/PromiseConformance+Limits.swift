import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The checks of a promise's limits: how many a component may have open, deadlines, and how long a
/// settled promise is kept.
extension PromiseChecks {
    static func componentLimit(_ c: ConformanceContext) async throws {
        let log = Locked<[Settled]>([])
        let registry = try makePromiseRegistry(log)
        let app = try await c.center("app", registry: registry)
        let ext = try await c.center("ext", registry: registry)
        let limited = try await app.makePromise(of: Int.self, limitedToComponent: true)
        let elsewhere = try await error(c, "awaiting from another component") { _ = try await ext.value(of: limited) }
        try c.expectEqual(
            elsewhere, .wrongComponent(id: limited.id, limitedTo: "app", awaitedFrom: "ext"), "a wait from elsewhere")
        try await ext.fulfil(limited, with: 1, settlementKey: "k")
        try c.expectEqual(try await app.value(of: limited), 1, "the value in the promise's component")
        let withFallback = try await app.makePromise(
            of: Int.self, fallback: try Handler(id: "Promised.fallback", registry: registry))
        try c.expect(try await app.record(of: withFallback)?.limitedToComponent == true, "a fallback limits it")
        let fallbackElsewhere = try await error(c, "awaiting a promise with a fallback from elsewhere") {
            _ = try await ext.value(of: withFallback)
        }
        try c.expect(
            { if case .wrongComponent = fallbackElsewhere { true } else { false } }(), "found \(fallbackElsewhere)")
        let open = try await app.makePromise(of: Int.self)
        try await app.fulfil(open, with: 2, settlementKey: "k")
        try c.expectEqual(try await ext.value(of: open), 2, "an unlimited promise awaited from another component")
        try await app.stop()
        try await ext.stop()
    }

    static func deadlines(_ c: ConformanceContext) async throws {
        let log = Locked<[Settled]>([])
        let registry = try makePromiseRegistry(log)
        let app = try await automaticCenter(c, "app", registry)
        let deadline = Date().addingTimeInterval(0.2)
        let soon = try await app.makePromise(of: Int.self, deadline: deadline)
        let timedOut = try await error(c, "awaiting past the deadline") { _ = try await app.value(of: soon) }
        guard case .timedOut(soon.id, let at) = timedOut, abs(at.timeIntervalSince(deadline)) < 0.001 else {
            throw ConformanceFailure(
                check: c.check, message: "expected a timeout at \(deadline), found \(timedOut)", line: #line)
        }
        // Not before it; how long after depends on the machine's load.
        let early = deadline.timeIntervalSinceNow
        try c.expect(early <= 0.01, "timed out at the deadline, not \(early) s before it")
        let late = try await error(c, "fulfilling a timed-out promise") {
            try await app.fulfil(soon, with: 1, settlementKey: "late")
        }
        try c.expect(
            { if case .alreadySettled(_, _, .timedOut, _) = late { true } else { false } }(), "found \(late)")
        try await app.stop()

        // No process runs at the deadline: the next one that starts settles it and runs the fallback.
        let maker = try await c.center("app", registry: registry)
        let unattended = try await maker.makePromise(
            of: Int.self, id: "unattended", fallback: try Handler(id: "Promised.fallback", registry: registry),
            deadline: Date().addingTimeInterval(0.1))
        try await maker.stop()
        try await Task.sleep(for: .milliseconds(200))
        let next = try await c.center("app", registry: registry)
        try c.expect(try await next.record(of: unattended)?.settlement?.outcome == .timedOut, "settled at start")
        try c.expectEqual(try await next.deliverDue(), 1, "deliveries of the timeout")
        try c.expectEqual(
            log.withLock { $0 },
            [Settled(handler: "Promised.fallback", promiseID: "unattended", outcome: "timedOut")], "fallback runs")
        try await next.stop()

        // A running center settles the promises it made at their deadlines, with no task waiting
        // (none will: the fallback receives the timeout at once).
        let running = try await automaticCenter(c, "app", registry)
        let timed = try await running.makePromise(
            of: Int.self, fallback: try Handler(id: "Promised.fallback", registry: registry),
            deadline: Date().addingTimeInterval(0.1), awaitedWithin: .zero)
        // Waits for the event; the bound only catches a hang on a loaded machine.
        let until = ContinuousClock.now + .seconds(120)
        while log.withLock({ $0.count }) < 2 && ContinuousClock.now < until {
            try await Task.sleep(for: .milliseconds(10))
        }
        try c.expectEqual(
            log.withLock { $0.last?.promiseID } ?? "none", timed.id, "the timeout delivered by the running center")
        try await running.stop()
    }

    static func retention(_ c: ConformanceContext) async throws {
        let app = try await c.center("app")
        let short = try await app.makePromise(of: Int.self, id: "short", retention: .zero)
        let long = try await app.makePromise(of: Int.self, id: "long", retention: .seconds(3_600))
        let pending = try await app.makePromise(of: Int.self, id: "pending", retention: .zero)
        try await app.fulfil(short, with: 1, settlementKey: "k")
        try await app.fulfil(long, with: 2, settlementKey: "k")
        try c.expectEqual(try await app.promises().map(\.id).sorted(), ["long", "pending", "short"], "all promises")
        try await Task.sleep(for: .milliseconds(20))
        let upkeep = try await app.keepPromises()
        try c.expectEqual(upkeep.removed, 1, "promises removed")
        try c.expectEqual(try await app.promises(settled: true).map(\.id), ["long"], "settled promises kept")
        try c.expectEqual(try await app.promises(settled: false).map(\.id), [pending.id], "pending promises kept")
        let removed = try await error(c, "re-attaching after the retention") { _ = try await app.value(of: short) }
        try c.expectEqual(removed, .unknownPromise(id: "short"), "a removed promise")
        try c.expectEqual(try await app.value(of: long), 2, "a kept promise's value")
        try await app.stop()
    }
}
