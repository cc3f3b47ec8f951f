import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The conformance suite of durable promises (`PromiseStore`): making, settling, awaiting,
/// fallback handlers, component limits, deadlines, cancellation and retention, checked through
/// `SignalCenter`'s public API on a store that conforms to `PromiseStore`. It runs like
/// ``SignalStoreConformance``:
///
/// ```swift
/// @Test(arguments: PromiseConformance.checks)
/// func promises(_ check: SignalStoreConformance.Check) async throws {
///     try await check.run { try MyStore(url: testURL, schema: UUID().uuidString) }
/// }
/// ```
public enum PromiseConformance {
    /// Every check of the suite.
    public static let checks: [SignalStoreConformance.Check] = PromiseChecks.all
}

/// One run of a promise's fallback handler, as the checks' handlers record it.
struct Settled: Sendable, Hashable {
    var handler: String
    var promiseID: String
    var outcome: String
    var value: Int?
    var rejection: PromiseRejection?
}

/// The fallback handlers of the checks, recording into `log`: `Promised.fallback`, `Promised.renamed`
/// (formerly `Promised.old`), and, with `includeGone`, `Promised.gone` (a handler a later version
/// removes) and `Promised.old`.
func makePromiseRegistry(_ log: Locked<[Settled]>, old: Bool = false) throws -> HandlerRegistry {
    func fallback(_ id: String, formerIDs: [String] = []) -> HandlerDescriptor {
        HandlerDescriptor(
            id: id, formerIDs: formerIDs,
            parameters: [
                .required("promiseID", String.self), .required("outcome", String.self),
                .optional("value", Int.self), .optional("rejection", PromiseRejection.self),
            ],
            invoke: { arguments in
                let settled = Settled(
                    handler: id, promiseID: try arguments.required("promiseID"),
                    outcome: try arguments.required("outcome"), value: try arguments.optional("value"),
                    rejection: try arguments.optional("rejection"))
                log.withLock { $0.append(settled) }
            })
    }
    let registry = HandlerRegistry()
    let handlers =
        old
        ? [fallback("Promised.fallback"), fallback("Promised.old"), fallback("Promised.gone")]
        : [fallback("Promised.fallback"), fallback("Promised.renamed", formerIDs: ["Promised.old"])]
    try registry.register(HandlerTable(module: old ? "PromiseChecksOld" : "PromiseChecks", handlers: handlers))
    return registry
}

enum PromiseChecks {
    static let all: [SignalStoreConformance.Check] = [
        .init(
            name:
                "a promise is settled once: the same settlement key again changes nothing, another one names the first",
            body: settledOnce),
        .init(name: "a task awaiting a promise resumes when another process settles it", body: awaitResumes),
        .init(
            name: "a settlement nobody awaits runs the fallback handler once; a later wait is told so",
            body: fallbackWhenNobodyWaits),
        .init(
            name: "a waiting task consumes the settlement instead of the fallback handler", body: waiterConsumes),
        .init(
            name:
                "a task awaiting across a suspension receives the settlement another process made meanwhile, after resume",
            body: waitAcrossSuspension),
        .init(
            name: "cancelling a wait leaves the promise; the next process of its component runs the fallback",
            body: cancelledWait),
        .init(
            name: "rejections and cancellations reach the waiting task and the fallback handler with their details",
            body: rejectAndCancel),
        .init(name: "a promise limited to a component is awaited only there, settled anywhere", body: componentLimit),
        .init(
            name: "a deadline times a promise out, also when no process runs then: the next one settles it",
            body: deadlines),
        .init(
            name: "settled promises are kept for their retention and listed; then they are removed", body: retention),
        .init(
            name:
                "a renamed fallback handler runs by its former id, a removed one parks the settlement dead, a renamed value type reads",
            body: evolution),
        .init(
            name: "a settlement made between makePromise and value(of:) goes to the maker's wait, not its fallback",
            body: heldForTheMakersWait),
        .init(
            name:
                "the fallback receives a settlement the maker does not await within awaitedWithin, and at once when the maker is gone",
            body: fallbackWhenTheMakerDoesNotAwait),
        .init(name: "bad input is a typed error naming what and where, and stores nothing", body: badInput),
        .init(
            name:
                "a settlement and its post to the fallback are one transaction: a refused post leaves the promise pending",
            body: settlementWithItsPost),
    ]

    /// A value that nests one level per `inner`.
    final class Nest: Codable, Sendable {
        let inner: Nest?
        init(inner: Nest?) { self.inner = inner }
    }

    struct Box: Codable, Equatable, Sendable {
        var name: String
        var size: Int
    }

    /// `Box` under its new name.
    struct Parcel: Codable, Equatable, Sendable, RenamedPromiseValue {
        static let formerTypeNames = [String(reflecting: Box.self)]
        var name: String
        var size: Int
    }

    /// What `body` throws as a `PromiseError`; a failure when it throws none or another error.
    static func error(
        _ c: ConformanceContext, _ what: String, line: Int = #line, _ body: () async throws -> Void
    ) async throws -> PromiseError {
        do {
            try await body()
        } catch let error as PromiseError {
            return error
        } catch {
            throw ConformanceFailure(
                check: c.check, message: "\(what): expected a PromiseError, got \(error)", line: line)
        }
        throw ConformanceFailure(
            check: c.check, message: "\(what): expected a PromiseError, nothing was thrown", line: line)
    }

    static func automaticCenter(
        _ c: ConformanceContext, _ component: String, _ registry: HandlerRegistry
    ) async throws
        -> SignalCenter
    {
        try await SignalCenter.start(component: component, store: c.store, registry: registry)
    }

    /// Waits until `center`'s run holds the fallback consumer of `promise`: a task of it awaits it.
    static func waitUntilHeld<Value>(
        _ c: ConformanceContext, _ promise: DurablePromise<Value>, by center: SignalCenter
    ) async throws {
        let consumer = try c.require(try await center.record(of: promise)?.fallbackConsumer, "a fallback consumer")
        for _ in 0..<4_000 {
            let consumers = try await c.store.consumers(of: center.component)
            if consumers.contains(where: { $0.id == consumer && $0.runID == center.runID }) { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw ConformanceFailure(
            check: c.check, message: "no task of run \(center.runID) awaits \(promise)", line: #line)
    }

    static func settledOnce(_ c: ConformanceContext) async throws {
        let app = try await c.center("app")
        let ext = try await c.center("ext")
        let promise = try await app.makePromise(of: Box.self, id: "avatar-1")
        try c.expectEqual(try await app.promises(settled: false).map(\.id), ["avatar-1"], "pending promises")
        try await ext.fulfil(promise, with: Box(name: "a", size: 1), settlementKey: "stanza-1")
        try await ext.fulfil(promise, with: Box(name: "a", size: 1), settlementKey: "stanza-1")
        try c.expectEqual(try await app.value(of: promise), Box(name: "a", size: 1), "the value")
        let conflict = try await error(c, "a second settlement") {
            try await ext.fulfil(promise, with: Box(name: "b", size: 2), settlementKey: "stanza-2")
        }
        guard case .alreadySettled(let id, let first, let outcome, _) = conflict else {
            throw ConformanceFailure(check: c.check, message: "expected alreadySettled, got \(conflict)", line: #line)
        }
        try c.expect(
            id == "avatar-1" && first == "stanza-1" && outcome == .fulfilled && "\(conflict)".contains("stanza-1"),
            "the error names the first settlement, found \(conflict)")
        try c.expectEqual(try await app.value(of: promise), Box(name: "a", size: 1), "the value after a conflict")
        let wrongType = try await error(c, "awaiting as another type") {
            _ = try await app.value(of: DurablePromise<String>(id: "avatar-1"))
        }
        try c.expect(
            { if case .wrongValueType = wrongType { true } else { false } }() && "\(wrongType)".contains("Box"),
            "a wrong value type is named, found \(wrongType)")
        let wrongFulfil = try await error(c, "fulfilling with another type") {
            try await ext.fulfil(DurablePromise<String>(id: "avatar-1"), with: "x", settlementKey: "stanza-3")
        }
        try c.expect(
            { if case .wrongValueType = wrongFulfil { true } else { false } }(), "found \(wrongFulfil)")
        let unknown = try await error(c, "an unknown promise") {
            _ = try await app.value(of: DurablePromise<Box>(id: "nope"))
        }
        try c.expectEqual(unknown, .unknownPromise(id: "nope"), "awaiting an unknown promise")
        let unknownSettle = try await error(c, "settling an unknown promise") {
            try await ext.cancel(DurablePromise<Box>(id: "nope"))
        }
        try c.expectEqual(unknownSettle, .unknownPromise(id: "nope"), "settling an unknown promise")
        try c.expectEqual(try await app.promises(settled: true).map(\.id), ["avatar-1"], "settled promises")
        try c.expectEqual(try await app.promises(settled: false).map(\.id), [], "pending promises")
        try await app.stop()
        try await ext.stop()
    }

    static func awaitResumes(_ c: ConformanceContext) async throws {
        let log = Locked<[Settled]>([])
        let registry = try makePromiseRegistry(log)
        let maker = try await c.center("app", registry: registry)
        let app = try await automaticCenter(c, "app", registry)
        let ext = try await c.center("ext")
        let made = try await maker.makePromise(
            of: Int.self, fallback: try Handler(id: "Promised.fallback", registry: registry))
        // Sent to another process as JSON, re-attached there from its id alone.
        let sent = try JSONDecoder().decode(DurablePromise<Int>.self, from: try JSONEncoder().encode(made))
        try c.expectEqual(sent, made, "the promise decoded from its JSON")
        let waiting = Task { try await app.value(of: made) }
        try await waitUntilHeld(c, made, by: app)
        try await ext.fulfil(sent, with: 7, settlementKey: "k")
        try c.expectEqual(try await waiting.value, 7, "the value the waiting task received")
        try c.expectEqual(log.withLock { $0 }, [], "fallback runs")
        let plain = try await app.makePromise(of: Int.self)
        let plainWait = Task { try await app.value(of: plain) }
        try await Task.sleep(for: .milliseconds(50))
        try await ext.fulfil(plain, with: 8, settlementKey: "k")
        try c.expectEqual(try await plainWait.value, 8, "the value of a promise without a fallback")
        try c.expectEqual(try await app.value(of: plain), 8, "the value read again")
        try await maker.stop()
        try await app.stop()
        try await ext.stop()
    }

    static func fallbackWhenNobodyWaits(_ c: ConformanceContext) async throws {
        let log = Locked<[Settled]>([])
        let registry = try makePromiseRegistry(log)
        let app = try await c.center("app", registry: registry)
        let ext = try await c.center("ext", registry: registry)
        // The maker declares that it does not await it: the fallback receives the settlement at once.
        let promise = try await app.makePromise(
            of: Int.self, id: "p", fallback: try Handler(id: "Promised.fallback", registry: registry),
            awaitedWithin: .zero)
        try await ext.fulfil(promise, with: 5, settlementKey: "k")
        try await ext.fulfil(promise, with: 5, settlementKey: "k")
        try c.expectEqual(try await ext.deliverDue(), 0, "deliveries by the settling component")
        try c.expectEqual(try await app.deliverDue(), 1, "deliveries by the promise's component")
        try c.expectEqual(
            log.withLock { $0 },
            [Settled(handler: "Promised.fallback", promiseID: "p", outcome: "fulfilled", value: 5)], "fallback runs")
        let late = try await error(c, "awaiting a consumed promise") { _ = try await app.value(of: promise) }
        try c.expectEqual(late, .consumedElsewhere(id: "p", outcome: .fulfilled), "a late wait")
        try await ext.fulfil(promise, with: 5, settlementKey: "k")
        try c.expectEqual(try await app.deliverDue(), 0, "deliveries after settling again")
        try c.expectEqual(log.withLock { $0.count }, 1, "fallback runs")
        try await app.stop()
        try await ext.stop()
    }

    static func waiterConsumes(_ c: ConformanceContext) async throws {
        let log = Locked<[Settled]>([])
        let registry = try makePromiseRegistry(log)
        let maker = try await c.center("app", registry: registry)
        let app = try await automaticCenter(c, "app", registry)
        let ext = try await c.center("ext", registry: registry)
        for round in 0..<5 {
            let promise = try await maker.makePromise(
                of: Int.self, fallback: try Handler(id: "Promised.fallback", registry: registry))
            let waiting = Task { try await app.value(of: promise) }
            try await waitUntilHeld(c, promise, by: app)
            try await ext.fulfil(promise, with: round, settlementKey: "k")
            try c.expectEqual(try await waiting.value, round, "the value the waiting task received")
        }
        try c.expectEqual(log.withLock { $0 }, [], "fallback runs")
        try c.expectEqual(try await app.openDeliveries(), 0, "open deliveries")
        let statistics = try await c.store.statistics()
        try c.expect(
            statistics.consumers == 0 && statistics.completions == 5,
            "no consumer left and 5 completions, found \(statistics)")
        try await maker.stop()
        try await app.stop()
        try await ext.stop()
    }

    /// The app awaits; it is suspended (its run holds nothing); the extension settles; the task
    /// receives the value only once the app resumes, and the fallback does not run.
    static func waitAcrossSuspension(_ c: ConformanceContext) async throws {
        let log = Locked<[Settled]>([])
        let registry = try makePromiseRegistry(log)
        let app = try await automaticCenter(c, "app", registry)
        let ext = try await c.center("ext", registry: registry)
        let promise = try await app.makePromise(
            of: Int.self, fallback: try Handler(id: "Promised.fallback", registry: registry))
        let received = Locked<Int?>(nil)
        let waiting = Task {
            let value = try await app.value(of: promise)
            received.withLock { $0 = value }
            return value
        }
        try await waitUntilHeld(c, promise, by: app)
        try await app.suspend(finishingWithin: .seconds(1))
        try await ext.fulfil(promise, with: 42, settlementKey: "reply")
        // The wake-up reaches the suspended process; the task waits for resume() without touching the store.
        try await Task.sleep(for: .milliseconds(300))
        try c.expectEqual(received.withLock { $0 }, nil, "the value received while suspended")
        try c.expect(!waiting.isCancelled, "the waiting task is still waiting")
        let resumed = try await app.resume()
        try c.expect(!resumed.wasTakenOver, "the suspended run was not taken over")
        try c.expectEqual(try await waiting.value, 42, "the value the waiting task received after resume")
        try c.expectEqual(log.withLock { $0 }, [], "fallback runs")
        try await app.stop()
        try await ext.stop()
    }

    static func cancelledWait(_ c: ConformanceContext) async throws {
        let log = Locked<[Settled]>([])
        let registry = try makePromiseRegistry(log)
        let first = try await automaticCenter(c, "app", registry)
        let promise = try await first.makePromise(
            of: Int.self, fallback: try Handler(id: "Promised.fallback", registry: registry))
        let waiting = Task { try await first.value(of: promise) }
        try await Task.sleep(for: .milliseconds(30))
        waiting.cancel()
        do {
            _ = try await waiting.value
            throw ConformanceFailure(check: c.check, message: "the cancelled wait returned a value", line: #line)
        } catch let error as PromiseError {
            try c.expectEqual(error, .waitCancelled(id: promise.id), "the cancelled wait's error")
        }
        try c.expect(try await first.record(of: promise)?.isSettled == false, "the promise is still pending")
        try await first.stop()
        let ext = try await c.center("ext", registry: registry)
        try await ext.fulfil(promise, with: 3, settlementKey: "k")
        let next = try await c.center("app", registry: registry)
        try c.expectEqual(next.takeover.adoptedConsumers, 1, "consumers adopted by the next process")
        try c.expectEqual(try await next.deliverDue(), 1, "deliveries by the next process")
        try c.expectEqual(log.withLock { $0.map(\.value) }, [3], "fallback runs")
        try await next.stop()
        try await ext.stop()
    }

    static func rejectAndCancel(_ c: ConformanceContext) async throws {
        let log = Locked<[Settled]>([])
        let registry = try makePromiseRegistry(log)
        let app = try await automaticCenter(c, "app", registry)
        let ext = try await c.center("ext", registry: registry)
        let rejection = PromiseRejection(code: "item-not-found", message: "no such item", details: ["node": "n1"])
        let rejected = try await app.makePromise(of: Int.self)
        let waiting = Task { try await app.value(of: rejected) }
        try await Task.sleep(for: .milliseconds(20))
        try await ext.reject(rejected, with: rejection, settlementKey: "r")
        do {
            _ = try await waiting.value
            throw ConformanceFailure(check: c.check, message: "a rejected promise returned a value", line: #line)
        } catch let error as PromiseError {
            try c.expectEqual(error, .rejected(id: rejected.id, rejection), "the rejection received")
        }
        let cancelled = try await app.makePromise(of: Int.self)
        try await ext.cancel(cancelled)
        let afterCancel = try await error(c, "awaiting a cancelled promise") { _ = try await app.value(of: cancelled) }
        try c.expectEqual(afterCancel, .cancelled(id: cancelled.id), "a cancelled promise")
        let conflict = try await error(c, "fulfilling a cancelled promise") {
            try await ext.fulfil(cancelled, with: 1, settlementKey: "late")
        }
        try c.expect(
            { if case .alreadySettled(_, "cancelled", .cancelled, _) = conflict { true } else { false } }(),
            "a settlement after the cancellation names it, found \(conflict)")

        let manual = try await c.center("app", registry: registry)
        let withFallback = try await manual.makePromise(
            of: Int.self, id: "rf", fallback: try Handler(id: "Promised.fallback", registry: registry),
            awaitedWithin: .zero)
        try await ext.reject(withFallback, with: rejection, settlementKey: "r")
        try c.expectEqual(try await manual.deliverDue(), 1, "deliveries of the rejection")
        try c.expectEqual(
            log.withLock { $0 },
            [Settled(handler: "Promised.fallback", promiseID: "rf", outcome: "rejected", rejection: rejection)],
            "the fallback's rejection")
        try await manual.stop()
        try await app.stop()
        try await ext.stop()
    }

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
        let early = deadline.timeIntervalSinceNow
        // Not before it; how long after depends on the machine's load (the bound only catches a hang).
        try c.expect(early <= 0.01 && early > -50, "timed out at the deadline, \(-early) s after it")
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
        let until = ContinuousClock.now + .seconds(5)
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

    static func evolution(_ c: ConformanceContext) async throws {
        let log = Locked<[Settled]>([])
        let oldRegistry = try makePromiseRegistry(log, old: true)
        let newRegistry = try makePromiseRegistry(log)
        let old = try await c.center("app", registry: oldRegistry)
        let renamed = try await old.makePromise(
            of: Int.self, id: "renamed", fallback: try Handler(id: "Promised.old", registry: oldRegistry))
        let gone = try await old.makePromise(
            of: Int.self, id: "gone", fallback: try Handler(id: "Promised.gone", registry: oldRegistry))
        try await old.stop()
        let new = try await c.center("app", registry: newRegistry)
        try await new.fulfil(renamed, with: 1, settlementKey: "k")
        try await new.fulfil(gone, with: 2, settlementKey: "k")
        try c.expectEqual(try await new.deliverDue(), 1, "deliveries completed")
        try c.expectEqual(
            log.withLock { $0 },
            [Settled(handler: "Promised.renamed", promiseID: "renamed", outcome: "fulfilled", value: 1)],
            "the renamed fallback's run")
        // A value type renamed since the promise was made: awaited and settled under its new name.
        let boxed = try await new.makePromise(of: Box.self, id: "boxed")
        try await new.fulfil(DurablePromise<Parcel>(id: boxed.id), with: Parcel(name: "p", size: 3), settlementKey: "k")
        try c.expectEqual(
            try await new.value(of: DurablePromise<Parcel>(id: boxed.id)), Parcel(name: "p", size: 3),
            "the value read under the type's new name")
        let other = try await error(c, "awaiting as a type that is not a rename") {
            _ = try await new.value(of: DurablePromise<Int>(id: boxed.id))
        }
        try c.expect({ if case .wrongValueType = other { true } else { false } }(), "found \(other)")
        let dead = try await new.deadDeliveries()
        try c.expect(
            dead.count == 1 && dead[0].handlerID == "Promised.gone" && dead[0].reason.contains("Promised.gone"),
            "the removed fallback's settlement is dead, naming it, found \(dead)")
        try await new.stop()
    }

    static func badInput(_ c: ConformanceContext) async throws {
        let app = try await c.center("app")
        for (id, needle) in [("", "empty"), (" x", "white space"), (String(repeating: "a", count: 300), "300 bytes")] {
            let error = try await error(c, "making a promise with id '\(id.prefix(8))'") {
                _ = try await app.makePromise(of: Int.self, id: id)
            }
            try c.expect(
                { if case .invalidPromise = error { true } else { false } }() && "\(error)".contains(needle),
                "an invalid id is named (\(needle)), found \(error)")
        }
        _ = try await app.makePromise(of: Int.self, id: "twice")
        let twice = try await error(c, "making a promise twice") {
            _ = try await app.makePromise(of: Int.self, id: "twice")
        }
        try c.expectEqual(twice, .promiseExists(id: "twice"), "a second promise with the same id")
        let invalidated = try c.handler("Sink.fail")
        try await invalidated.invalidate()
        let badFallback = try await error(c, "an invalidated fallback") {
            _ = try await app.makePromise(of: Int.self, id: "bad", fallback: invalidated)
        }
        try c.expect({ if case .invalidPromise = badFallback { true } else { false } }(), "found \(badFallback)")
        // Settlements a fallback delivery could not read: refused, and the promise stays pending.
        let deep = (0..<(DecodingLimits.default.maximumDepth + 10)).reduce(Nest(inner: nil)) { inner, _ in
            Nest(inner: inner)
        }
        let nested = try await app.makePromise(of: Nest.self, id: "deep")
        let tooDeep = try await error(c, "fulfilling with a value nested too deep") {
            try await app.fulfil(nested, with: deep, settlementKey: "k")
        }
        try c.expect(
            { if case .invalidSettlement(_, .payloadTooDeep) = tooDeep { true } else { false } }()
                && "\(tooDeep)".contains("value.inner.inner"),
            "a value nested too deep is refused naming where, found \(tooDeep)")
        let large = try await app.makePromise(of: String.self, id: "large")
        let tooLarge = try await error(c, "fulfilling with a value too large") {
            try await app.fulfil(
                large, with: String(repeating: "x", count: DecodingLimits.default.maximumDocumentSize),
                settlementKey: "k")
        }
        try c.expect(
            { if case .invalidSettlement(_, .payloadTooLarge) = tooLarge { true } else { false } }(),
            "a value too large is refused, found \(tooLarge)")
        let hugeRejection = try await error(c, "rejecting with details too large") {
            try await app.reject(
                large,
                with: PromiseRejection(
                    code: "big", message: "m",
                    details: ["blob": String(repeating: "y", count: DecodingLimits.default.maximumDocumentSize)]),
                settlementKey: "k")
        }
        try c.expect(
            { if case .invalidSettlement(_, .payloadTooLarge) = hugeRejection { true } else { false } }(),
            "a rejection too large is refused, found \(hugeRejection)")
        for refused in ["deep", "large"] {
            try c.expectEqual(
                try await app.promises(settled: true).map(\.id).contains(refused), false,
                "promise '\(refused)' settled by a refused settlement")
        }
        try await app.cancel(nested)
        try await app.cancel(large)
        try c.expectEqual(try await app.promises().map(\.id).sorted(), ["deep", "large", "twice"], "promises stored")
        try c.expectEqual(try await c.store.statistics().consumers, 0, "consumers stored")
        try await app.stop()
        let stopped = try await error(c, "making a promise on a stopped center") {
            _ = try await app.makePromise(of: Int.self)
        }
        try c.expect({ if case .store(.centerStopped) = stopped { true } else { false } }(), "found \(stopped)")
    }

    static func settlementWithItsPost(_ c: ConformanceContext) async throws {
        let store = try c.require(c.store as? any PromiseStore, "a PromiseStore")
        let registry = try makePromiseRegistry(Locked([]))
        let app = try await c.center("app", registry: registry)
        let promise = try await app.makePromise(
            of: Int.self, id: "atomic", fallback: try Handler(id: "Promised.fallback", registry: registry))
        let consumer = try c.require(try await app.record(of: promise)?.fallbackConsumer, "a fallback consumer")
        let signal = try c.require(
            try await store.consumers(of: "app").first { $0.id == consumer }?.signalID, "the fallback's signal")
        let settlement = PromiseSettlementRecord(
            key: "k", outcome: .fulfilled, body: Array("7".utf8), settledAt: Date())
        let post = PromiseSettlementPost(
            signalID: signal, payload: Array(#"{"promiseID":"atomic","outcome":"fulfilled","value":7}"#.utf8))
        let seen = Locked<[PromiseRecord]>([])
        // Another value type: not settled; the post is asked for the promise as it is.
        let untouched = try await store.settlePromise(
            "atomic", with: settlement, ifValueTypeIn: ["Other.Type"],
            thenPosting: { record throws(SignalError) in
                seen.withLock { $0.append(record) }
                return nil
            })
        try c.expectEqual(untouched?.isSettled, false, "a promise settled as another value type")
        try c.expectEqual(seen.withLock { $0.map(\.isSettled) }, [false], "the records the post was asked for")
        // A post that fails rolls the settlement back.
        let refused = try await c.error("a settlement whose post fails") {
            _ = try await store.settlePromise(
                "atomic", with: settlement, ifValueTypeIn: nil,
                thenPosting: { record throws(SignalError) in
                    throw .malformedRecord(table: "promises", key: record.id, column: "body", reason: "refused")
                })
        }
        try c.expect("\(refused)".contains("refused"), "the post's error is thrown, found \(refused)")
        try c.expectEqual(try await store.promise("atomic")?.isSettled, false, "settled although its post failed")
        try c.expectEqual(try await store.statistics().pendingDeliveries, 0, "deliveries after a failed post")
        // Settled and posted together; an unknown promise asks for no post.
        let settled = try await store.settlePromise(
            "atomic", with: settlement, ifValueTypeIn: [String(reflecting: Int.self)],
            thenPosting: { record throws(SignalError) in record.isSettled ? post : nil })
        try c.expectEqual(settled?.settlement?.key, "k", "the settlement stored")
        try c.expectEqual(try await store.statistics().pendingDeliveries, 1, "the settlement's post")
        let unknown = try await store.settlePromise(
            "nope", with: settlement, ifValueTypeIn: nil,
            thenPosting: { _ throws(SignalError) in
                throw .malformedRecord(table: "promises", key: "nope", column: "-", reason: "asked for no promise")
            })
        try c.expectEqual(unknown, nil, "settling an unknown promise")
        try await app.stop()
    }
}
