import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection

/// The checks of who receives a settlement that reaches the center that made the promise before
/// any of its tasks awaits it: held for that center's wait, then the fallback's.
extension PromiseChecks {
    /// Make, hand over, settle, and only then await: the settlement is posted between `makePromise`
    /// and `value(of:)`, with a center that delivers when asked and one that delivers by itself.
    static func heldForTheMakersWait(_ c: ConformanceContext) async throws {
        let log = Locked<[Settled]>([])
        let registry = try makePromiseRegistry(log)
        let fallback = try Handler(id: "Promised.fallback", registry: registry)
        let manual = try await c.center("app", registry: registry)
        let ext = try await c.center("ext", registry: registry)
        let asked = try await manual.makePromise(of: Int.self, fallback: fallback)
        try await ext.fulfil(asked, with: 11, settlementKey: "k")
        try c.expectEqual(try await manual.deliverDue(), 0, "deliveries completed before the maker awaits")
        try c.expectEqual(log.withLock { $0 }, [], "fallback runs before the maker awaits")
        try c.expectEqual(try await manual.value(of: asked), 11, "the value the maker's wait received")
        try c.expectEqual(try await manual.openDeliveries(), 0, "open deliveries of the maker")

        let automatic = try await automaticCenter(c, "app", registry)
        let quick = try await automatic.makePromise(of: Int.self, fallback: fallback)
        try await ext.fulfil(quick, with: 12, settlementKey: "k")
        // The maker's center has claimed the settlement before the wait begins (where the store
        // lists its deliveries); before, its fallback ran then.
        if let inspectable = c.store as? any InspectableSignalStore {
            let filter = DeliveryFilter(signalID: SignalCenter.settlementSignal(of: quick.id))
            var seen: [DeliveryRecord] = []
            for _ in 0..<4_000 {
                seen = try await inspectable.deliveries(matching: filter)
                if seen.contains(where: { $0.filterState == .claimed }) || !log.withLock({ $0.isEmpty }) { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            try c.expect(
                seen.contains { $0.filterState == .claimed },
                "the settlement is held, claimed by the maker's run; found \(seen.map(\.filterState)), fallback runs \(log.withLock { $0 })"
            )
        }
        try c.expectEqual(try await automatic.value(of: quick), 12, "the value the automatic maker's wait received")
        try c.expectEqual(log.withLock { $0 }, [], "fallback runs")
        try await automatic.stop()
        try await manual.stop()
        try await ext.stop()
    }

    /// The maker does not await within `awaitedWithin` (the fallback runs then, not before), or its
    /// run ends while it holds the settlement (the next process runs the fallback at once).
    static func fallbackWhenTheMakerDoesNotAwait(_ c: ConformanceContext) async throws {
        let log = Locked<[Settled]>([])
        let registry = try makePromiseRegistry(log)
        let fallback = try Handler(id: "Promised.fallback", registry: registry)
        let app = try await c.center("app", registry: registry)
        let ext = try await c.center("ext", registry: registry)
        let window = Duration.milliseconds(300)
        let unawaited = try await app.makePromise(of: Int.self, fallback: fallback, awaitedWithin: window)
        try await ext.fulfil(unawaited, with: 21, settlementKey: "k")
        let held = ContinuousClock.now
        try c.expectEqual(try await app.deliverDue(), 0, "deliveries completed within awaitedWithin")
        var completed = 0
        let until = ContinuousClock.now + .seconds(120)  // a bound for a hang on a loaded machine
        while completed == 0 && ContinuousClock.now < until {
            completed += try await app.deliverDue()
            if completed == 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
        let waited = held.duration(to: .now)
        try c.expectEqual(completed, 1, "deliveries completed after awaitedWithin")
        try c.expect(waited >= window, "the fallback ran \(waited) after the settlement was held, before \(window)")
        try c.expectEqual(
            log.withLock { $0 },
            [Settled(handler: "Promised.fallback", promiseID: unawaited.id, outcome: "fulfilled", value: 21)],
            "fallback runs")
        let late = try await error(c, "awaiting after the fallback ran") { _ = try await app.value(of: unawaited) }
        try c.expectEqual(late, .consumedElsewhere(id: unawaited.id, outcome: .fulfilled), "a late wait")
        try await app.stop()

        log.withLock { $0 = [] }
        let maker = try await c.center("app", registry: registry)
        let orphaned = try await maker.makePromise(of: Int.self, fallback: fallback)
        try await ext.fulfil(orphaned, with: 22, settlementKey: "k")
        try c.expectEqual(try await maker.deliverDue(), 0, "deliveries completed by the maker before it stops")
        try await maker.stop()
        let next = try await c.center("app", registry: registry)
        // Given back at the stop, not interrupted: due at once, its attempt not counted.
        try c.expectEqual(try await next.deliverDue(), 1, "deliveries completed by the next process")
        try c.expectEqual(
            log.withLock { $0 },
            [Settled(handler: "Promised.fallback", promiseID: orphaned.id, outcome: "fulfilled", value: 22)],
            "fallback runs in the next process")
        try c.expectEqual(try await next.deadDeliveries().count, 0, "dead deliveries")
        try await next.stop()
        try await ext.stop()
    }
}
