import Foundation
import HandlerKit
import HandlerKitSignals
import Testing

/// The behaviour every `SignalStore` must have, through `SignalCenter`'s public API. Each test runs
/// against every store of `StoreKind.all`.
@Suite("Signals: the model, against every store")
struct ConformanceTests {
    let folder = TemporaryFolder()
    let recorder = Recorder()
    let registry: HandlerRegistry

    init() throws { registry = try makeRegistry(recorder) }

    @Test(arguments: StoreKind.all)
    func postingWithoutAConsumerIsReportedAndStoresNothing(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let center = try await manualCenter("app", store: store, registry: registry)
        let result = try await center.post("nobody", payload: ["item": 1])
        #expect(result.hadNoConsumer)
        #expect(result.deliveries == 0 && !result.kept)
        #expect(try await store.statistics().signals == 0)
        try await center.stop()
    }

    @Test(arguments: StoreKind.all)
    func aOnceConsumerReceivesThePayloadAndTheDeliveryKeyThenEverythingIsCleanedUp(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let center = try await manualCenter("app", store: store, registry: registry)
        let signal = SignalID()
        let consumer = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: signal)
        let result = try await center.post(signal, payload: ["item": 42, "note": "done", "unused": true])
        #expect(result.revision == 1 && result.deliveries == 1)
        #expect(try await center.deliverDue() == 1)
        let key = "\(consumer.rawValue)/1"
        #expect(recorder.all == [Received(handler: "Sink.receive", item: 42, note: "done", deliveryKey: key, revision: 1)])
        #expect(try await store.completions(of: DeliveryKey(key)).count == 1)
        let statistics = try await store.statistics()
        #expect(statistics.consumers == 0 && statistics.signals == 0 && statistics.pendingDeliveries == 0)

        // The consumer is gone: a second post has no consumer and nothing runs again.
        #expect(try await center.post(signal, payload: ["item": 43]).hadNoConsumer)
        #expect(try await center.deliverDue() == 0)
        #expect(recorder.all.count == 1)
        try await center.stop()
    }

    @Test(arguments: StoreKind.all)
    func anEveryRevisionConsumerReceivesEachRevisionInOrderUntilRemoved(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let center = try await manualCenter("app", store: store, registry: registry)
        let consumer = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "progress",
                                                 delivery: .everyRevision)
        for item in 1...3 { #expect(try await center.post("progress", payload: ["item": item]).revision == item) }
        #expect(try await center.deliverDue() == 3)
        #expect(recorder.all.map(\.item) == [1, 2, 3])
        #expect(recorder.all.map(\.revision) == [1, 2, 3])
        #expect(try await center.remove(consumer))
        #expect(try await center.post("progress", payload: ["item": 4]).hadNoConsumer)
        #expect(try await store.statistics().signals == 0)
        try await center.stop()
    }

    @Test(arguments: StoreKind.all)
    func aSignalKeptForALateConsumerIsDeliveredWhenItRegisters(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let center = try await manualCenter("app", store: store, registry: registry)
        let kept = try await center.post("early", payload: ["item": 7], ifUnconsumed: .keep(for: .seconds(600)))
        #expect(kept.hadNoConsumer && kept.kept)
        let dropped = try await center.post("reported", payload: ["item": 8])
        #expect(dropped.hadNoConsumer && !dropped.kept)

        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "early")
        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "reported")
        #expect(try await center.deliverDue() == 1)
        #expect(recorder.all.map(\.item) == [7])
        try await center.stop()
    }

    @Test(arguments: StoreKind.all)
    func runTiedConsumersEndWithTheRunAndDurableOnesAreDeliveredByTheNextRun(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let first = try await manualCenter("app", store: store, registry: registry)
        _ = try await first.register(try Handler(id: "Sink.receive", registry: registry), for: "tied", lifetime: .run)
        let durable = try await first.register(try Handler(id: "Sink.receive", registry: registry), for: "durable")
        try await first.stop()
        #expect(try await store.statistics().consumers == 1)

        let poster = try await manualCenter("sync", store: store, registry: registry)
        #expect(try await poster.post("tied", payload: ["item": 1]).hadNoConsumer)
        #expect(try await poster.post("durable", payload: ["item": 2]).deliveries == 1)
        #expect(try await poster.deliverDue() == 0, "another component never delivers the app's consumers")

        let second = try await manualCenter("app", store: store, registry: registry)
        #expect(second.takeover.deadRuns == [first.runID])
        #expect(second.takeover.adoptedConsumers == 1)
        #expect(try await second.deliverDue() == 1)
        #expect(recorder.all.map(\.deliveryKey) == ["\(durable.rawValue)/1"])
        try await second.stop()
        try await poster.stop()
        #expect(try await store.statistics() == SignalStoreStatistics(completions: 1))
    }

    @Test(arguments: StoreKind.all)
    func aLiveRunOfTheSameComponentIsNotTakenOver(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let first = try await manualCenter("app", store: store, registry: registry)
        _ = try await first.register(try Handler(id: "Sink.receive", registry: registry), for: "mine")
        let second = try await manualCenter("app", store: store, registry: registry)
        #expect(second.takeover.deadRuns.isEmpty)
        _ = try await second.post("mine", payload: ["item": 1])
        #expect(try await second.deliverDue() == 0, "the registering run is alive: it delivers")
        #expect(try await first.deliverDue() == 1)
        try await first.stop()
        try await second.stop()
    }

    @Test(arguments: StoreKind.all)
    func aRunningProcessTakesOverARunOfItsComponentThatEndedWhenAsked(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let survivor = try await manualCenter("app", store: store, registry: registry)
        let ending = try await manualCenter("app", store: store, registry: registry)
        _ = try await ending.register(try Handler(id: "Sink.receive", registry: registry), for: "adopt")
        _ = try await survivor.post("adopt", payload: ["item": 1])
        #expect(try await survivor.takeOverDeadRuns().deadRuns.isEmpty, "the other run is alive")
        try await ending.stop()
        let report = try await survivor.takeOverDeadRuns()
        #expect(report.deadRuns == [ending.runID] && report.adoptedConsumers == 1)
        #expect(try await survivor.deliverDue() == 1)
        try await survivor.stop()
    }

    @Test(arguments: StoreKind.all)
    func aThrowingHandlerIsRetriedWithBackoffThenParkedDeadAndCanBeRequeued(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let retry = RetryPolicy(maximumAttempts: 3, firstDelay: .milliseconds(1), maximumDelay: .milliseconds(2))
        let center = try await manualCenter("app", store: store, registry: registry, retry: retry)
        let consumer = try await center.register(try Handler(id: "Sink.fail", registry: registry), for: "flaky")
        _ = try await center.post("flaky")
        func deliverUntilSettled() async throws {
            while try await center.openDeliveries() > 0 {
                _ = try await center.deliverDue()
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        try await deliverUntilSettled()
        #expect(recorder.all.count == 3)
        let dead = try await center.deadDeliveries()
        #expect(dead.count == 1)
        #expect(dead.first?.key == DeliveryKey("\(consumer.rawValue)/1"))
        #expect(dead.first?.attempts == 3)
        #expect(dead.first?.reason == "handler 'Sink.fail' threw on attempt 3: the test handler fails on purpose")
        #expect(try await store.statistics().consumers == 1, "the consumer stays while its delivery is dead")

        #expect(try await center.requeue(DeliveryKey("\(consumer.rawValue)/1")))
        #expect(try await center.requeue(DeliveryKey("no such key")) == false)
        try await deliverUntilSettled()
        #expect(recorder.all.count == 6, "requeued with a fresh count of attempts")
        #expect(try await center.deadDeliveries().map(\.attempts) == [3])
        try await center.stop()
    }

    @Test(arguments: StoreKind.all)
    func anUnknownHandlerIdIsParkedDeadNotDroppedAndRunsWhenRequeuedWhereItExists(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let registering = try await manualCenter("app", store: store, registry: registry)
        _ = try await registering.register(try Handler(id: "Sink.receive", registry: registry), for: "s")
        try await registering.stop()
        // The next process of the component lacks the handler's module.
        let lacking = try await manualCenter("app", store: store, registry: HandlerRegistry())
        _ = try await lacking.post("s", payload: ["item": 5])
        #expect(try await lacking.deliverDue() == 0)
        let dead = try #require(try await lacking.deadDeliveries().first)
        #expect(dead.handlerID == "Sink.receive")
        #expect(dead.reason.contains("unknown handler id 'Sink.receive'"))
        #expect(dead.reason.contains("table 'deliveries', key '\(dead.key.rawValue)', column 'handler'"))
        try await lacking.stop()

        let complete = try await manualCenter("app", store: store, registry: registry)
        #expect(try await complete.requeue(dead.key))
        #expect(try await complete.deliverDue() == 1)
        #expect(recorder.all.map(\.item) == [5])
        try await complete.stop()
    }

    @Test(arguments: StoreKind.all)
    func aPayloadValueOfTheWrongTypeIsParkedDeadWithTheArgumentAndTypes(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let center = try await manualCenter("app", store: store, registry: registry)
        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "typed")
        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "missing")
        _ = try await center.post("typed", payload: ["item": "not a number"])
        _ = try await center.post("missing", payload: ["note": "no item"])
        #expect(try await center.deliverDue() == 0)
        let reasons = try await center.deadDeliveries().map(\.reason)
        #expect(reasons.count == 2)
        #expect(reasons.first == "payload of signal 'typed', value 'item': revision 1 does not fit the consumer's handler: handler 'Sink.receive': argument 'item' expects Int but found string \"not a number\" (expected Int, found string \"not a number\")")
        #expect(reasons.last == "handler 'Sink.receive' threw on attempt 1: handler 'Sink.receive': missing mandatory argument 'item' of type Int", "\(reasons)")
        #expect(recorder.all.isEmpty)
        try await center.stop()
    }

    @Test(arguments: StoreKind.all)
    func asyncHandlersRunAndConsumersOfOtherComponentsAreLeftAlone(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let app = try await manualCenter("app", store: store, registry: registry)
        let share = try await manualCenter("share", store: store, registry: registry)
        _ = try await app.register(try Handler(id: "Sink.async", registry: registry), for: "both")
        _ = try await share.register(try Handler(id: "Sink.receive", registry: registry), for: "both")
        #expect(try await app.post("both", payload: ["item": 3]).deliveries == 2)
        #expect(try await app.deliverDue() == 1)
        #expect(recorder.all.map(\.handler) == ["Sink.async"])
        #expect(try await share.deliverDue() == 1)
        #expect(recorder.all.map(\.handler) == ["Sink.async", "Sink.receive"])
        try await app.stop()
        try await share.stop()
    }

    @Test(arguments: StoreKind.all)
    func completionIsGuardedBySameRunAndAttempt(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let center = try await manualCenter("app", store: store, registry: registry)
        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "g")
        _ = try await center.post("g", payload: ["item": 1])
        let claimed = try #require(try await store.claim(for: center.runID, limit: 10).first)
        #expect(claimed.attempt == 1)
        var otherAttempt = claimed
        otherAttempt.attempt = 2
        var otherRun = claimed
        otherRun.runID = "another run"
        #expect(try await store.complete(otherAttempt) == false)
        #expect(try await store.complete(otherRun) == false)
        #expect(try await store.release(otherRun, reason: "x", retryAt: nil) == false)
        #expect(try await store.complete(claimed))
        #expect(try await store.complete(claimed) == false, "a delivery completes once")
        #expect(try await store.completions(of: claimed.key).count == 1)
        try await center.stop()
    }

    @Test(arguments: StoreKind.all)
    func automaticDeliveryRunsWithoutBeingAsked(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let center = try await SignalCenter.start(component: "app", store: store, registry: registry)
        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "auto")
        _ = try await center.post("auto", payload: ["item": 9])
        // Not a timing assertion: waits (up to a minute) for the delivery task to run the handler.
        for _ in 0..<6_000 where recorder.all.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(recorder.all.map(\.item) == [9])
        try await center.stop()
        #expect(try await store.statistics().consumers == 0)
    }

    @Test(arguments: StoreKind.all)
    func badInputIsATypedErrorNamingWhatAndWhere(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        await #expect(throws: SignalError.invalidComponent("", reason: "it is empty")) {
            _ = try await manualCenter("", store: store, registry: registry)
        }
        let center = try await manualCenter("app", store: store, registry: registry)
        await #expect(throws: SignalError.invalidSignalID("", reason: "it is empty")) { try await center.post("") }
        let long = String(repeating: "x", count: 513)
        await #expect(throws: SignalError.invalidSignalID(long, reason: "it is 513 bytes long; the limit is 512")) {
            try await center.post(SignalID(long))
        }
        let reserved = await #expect(throws: SignalError.self) { try await center.post("s", payload: ["deliveryKey": "mine"]) }
        #expect(reserved?.description == "payload of signal 's', value 'deliveryKey': this name is reserved: handlers receive it from HandlerKitSignals itself")
        let unencodable = await #expect(throws: SignalError.self) { try await center.post("s", payload: ["bad": Unencodable()]) }
        #expect(unencodable?.description.hasPrefix("payload of signal 's', value 'bad': cannot be encoded:") == true)
        let handler = try Handler(id: "Sink.receive", registry: registry)
        try await handler.invalidate()
        await #expect(throws: SignalError.invalidHandler(handler: "Sink.receive", reason: "it has been invalidated")) {
            _ = try await center.register(handler, for: "s")
        }
        try await center.stop()
        let stopped = await #expect(throws: SignalError.self) { try await center.post("s") }
        #expect(stopped == .centerStopped(component: "app", runID: center.runID))
        #expect(try await store.statistics() == SignalStoreStatistics())
    }
}

struct Unencodable: Encodable {
    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "never encodes"))
    }
}

extension SignalStoreStatistics {
    /// Nothing left but `completions` in the history.
    init(completions: Int) {
        self.init()
        self.completions = completions
    }
}
