import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The conformance suite of durable promises: making, settling, awaiting, fallback handlers,
/// component limits, deadlines, cancellation and retention, checked through `SignalCenter`'s
/// public API on a store. It runs like
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
        .init(
            name: "settlers racing with different keys: one settles, every other is told which one",
            body: racingSettlers),
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
            check: c.check, message: "no task of run \(center.runID) awaits promise \(promise.id)", line: #line)
    }

    static func racingSettlers(_ c: ConformanceContext) async throws {
        let app = try await c.center("app")
        var settlers: [SignalCenter] = []
        for _ in 0..<6 { settlers.append(try await c.center("ext")) }
        let promise = try await app.makePromise(of: Int.self, id: "raced")
        let outcomes = await withTaskGroup(of: (Int, (any Error)?).self) { group in
            for (index, settler) in settlers.enumerated() {
                group.addTask {
                    do {
                        try await settler.fulfil(promise, with: index, settlementKey: "settler-\(index)")
                        return (index, nil)
                    } catch {
                        return (index, error)
                    }
                }
            }
            var outcomes: [(Int, (any Error)?)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        let winners = outcomes.filter { $0.1 == nil }.map { $0.0 }
        try c.expectEqual(winners.count, 1, "settlers that settled (\(outcomes))")
        let winner = winners[0]
        for case (let index, let error?) in outcomes {
            guard case .alreadySettled(_, let firstKey, _, _)? = error as? PromiseError else {
                throw ConformanceFailure(
                    check: c.check, message: "settler \(index): expected alreadySettled, got \(error)", line: #line)
            }
            try c.expectEqual(firstKey, "settler-\(winner)", "the first settlement settler \(index) is told of")
        }
        try c.expectEqual(try await app.value(of: promise), winner, "the value")
        for settler in settlers { try await settler.stop() }
        try await app.stop()
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
}
