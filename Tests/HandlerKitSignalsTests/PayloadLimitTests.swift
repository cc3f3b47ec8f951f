import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import Testing

/// `depth` arrays nested inside each other around `0`, made up while encoding: no deep value exists
/// in memory, so any depth can be asked for.
private struct NestedArrays: Encodable {
    let depth: Int

    func encode(to encoder: any Encoder) throws {
        if depth == 0 {
            var container = encoder.singleValueContainer()
            try container.encode(0)
        } else {
            var container = encoder.unkeyedContainer()
            try container.encode(NestedArrays(depth: depth - 1))
        }
    }
}

/// What the handler of the tests received, in order.
private final class Deliveries: Sendable {
    private let received = Locked<[String]>([])

    func add(_ text: String) {
        received.withLock { $0.append(text) }
    }

    var all: [String] { received.withLock { $0 } }
}

/// How many arrays are nested inside each other at the start of `value`, counted iteratively.
private func nestedArrayDepth(_ value: HandlerValue) -> Int {
    var depth = 0
    var current = value
    while case .array(let elements) = current, let inner = elements.first {
        depth += 1
        current = inner
    }
    return depth
}

@Suite("Signals: payloads and consumers a delivery could not read are refused, nothing stored")
struct PayloadLimitTests {
    private let deliveries = Deliveries()
    let registry = HandlerRegistry()
    let depthLimit = DecodingLimits.default.maximumDepth
    let sizeLimit = DecodingLimits.default.maximumDocumentSize
    let signal: SignalID = "limits"

    init() throws {
        let deliveries = deliveries
        try registry.register(
            HandlerTable(
                module: "PayloadLimits",
                handlers: [
                    HandlerDescriptor(
                        id: "Limits.take",
                        parameters: [
                            .optional("value", HandlerValue.self), .optional("text", String.self),
                            .optional("blob", Data.self),
                        ],
                        invoke: { arguments in
                            let value: HandlerValue? = try arguments.optional("value")
                            let text: String? = try arguments.optional("text")
                            deliveries.add(
                                "depth \(value.map(nestedArrayDepth) ?? -1) text \(text?.utf8.count ?? -1)")
                        }
                    )
                ]))
    }

    /// A center on a fresh in-memory store, delivering only when asked, with one consumer.
    private func startCenter(
        consumer: Handler? = nil
    ) async throws -> (SignalCenter, InMemorySignalStore) {
        let store = InMemorySignalStore()
        let center = try await SignalCenter.start(
            component: "app", store: store, registry: registry,
            options: SignalCenter.Options(deliversAutomatically: false))
        try await center.register(consumer ?? Handler(id: "Limits.take", registry: registry), for: signal)
        return (center, store)
    }

    /// Posts `payload`, expects `error`, and checks that nothing was stored or delivered.
    private func expectRefused(_ payload: SignalPayload, with check: (SignalError) -> Bool) async throws {
        let (center, store) = try await startCenter()
        do {
            try await center.post(signal, payload: payload)
            Issue.record("the post was accepted")
        } catch {
            #expect(check(error), "\(error)")
        }
        let statistics = try await store.statistics()
        #expect(statistics.signals == 0 && statistics.pendingDeliveries == 0 && statistics.deadDeliveries == 0)
        #expect(try await center.deliverDue() == 0)
        #expect(deliveries.all.isEmpty)
        try await center.stop()
    }

    // MARK: Depth

    /// A payload value becomes a bound value of the consumer's handler: inside the document's object
    /// and its `bound` object.
    @Test func aPayloadValueAtTheDepthLimitIsDelivered() async throws {
        let (center, _) = try await startCenter()
        try await center.post(signal, payload: ["value": NestedArrays(depth: depthLimit - 2)])
        #expect(try await center.deliverDue() == 1)
        #expect(deliveries.all == ["depth \(depthLimit - 2) text -1"])
        try await center.stop()
    }

    @Test func aPayloadValueOneLevelDeeperIsRefusedWithItsPath() async throws {
        let path = "value" + String(repeating: "[0]", count: depthLimit - 2)
        try await expectRefused(["value": NestedArrays(depth: depthLimit - 1)]) { error in
            error == .payloadTooDeep(signal: "limits", path: path, limit: depthLimit)
                && error.description.contains("\(depthLimit) levels")
                && error.description.contains("nothing was posted")
        }
    }

    @Test func aPayloadValueAHundredThousandLevelsDeepIsRefusedWithoutExhaustingTheStack() async throws {
        let path = "value" + String(repeating: "[0]", count: depthLimit - 2)
        try await expectRefused(["value": NestedArrays(depth: 100_000)]) { error in
            error == .payloadTooDeep(signal: "limits", path: path, limit: depthLimit)
        }
    }

    // MARK: Size

    @Test func aPayloadOfExactlyTheSizeLimitIsDelivered() async throws {
        let (center, _) = try await startCenter()
        let text = String(repeating: "a", count: sizeLimit - #"{"text":""}"#.utf8.count)
        try await center.post(signal, payload: ["text": text])
        #expect(try await center.deliverDue() == 1)
        #expect(deliveries.all == ["depth -1 text \(text.utf8.count)"])
        try await center.stop()
    }

    @Test func aPayloadOneByteOverTheSizeLimitIsRefused() async throws {
        let text = String(repeating: "a", count: sizeLimit - #"{"text":"","value":1}"#.utf8.count + 1)
        try await expectRefused(["text": text, "value": 1]) { error in
            error == .payloadTooLarge(signal: "limits", size: sizeLimit + 1, limit: sizeLimit, largestValue: "text")
                && error.description.contains("\(sizeLimit + 1) bytes")
        }
    }

    @Test func dataWhoseBase64IsOverTheSizeLimitIsRefusedSayingWhy() async throws {
        let blob = Data(count: sizeLimit / 4 * 3)
        try await expectRefused(["blob": blob]) { error in
            guard case .payloadTooLarge("limits", let size, sizeLimit, "blob") = error else { return false }
            return size == blob.count / 3 * 4 + #"{"blob":""}"#.utf8.count && error.description.contains("base64")
        }
    }

    // MARK: Consumers

    @Test func aConsumerWhoseDocumentIsTooDeepToReadBackIsRefused() async throws {
        // Read with larger limits than a delivery uses: a bound value 63 levels deep.
        let deep = String(repeating: "[", count: depthLimit - 1) + "0" + String(repeating: "]", count: depthLimit - 1)
        let json = #"{"bound":{"value":\#(deep)},"id":"Limits.take","version":1}"#
        let handler = try Handler(json: json, registry: registry, limits: DecodingLimits(maximumDepth: 100))
        try await expectRegistrationRefused(handler) { reason in
            reason.contains("'bound.value\(String(repeating: "[0]", count: depthLimit - 2))'")
                && reason.contains("\(depthLimit) levels")
        }
    }

    @Test func aConsumerWhoseDocumentIsTooLargeToReadBackIsRefused() async throws {
        // Each value fits a document alone; together they do not.
        let half = String(repeating: "a", count: sizeLimit / 2)
        let handler = try Handler(
            id: "Limits.take", bound: ["text": half, "value": HandlerValue.string(half + "a")], registry: registry)
        let size = handler.jsonData().count
        try await expectRegistrationRefused(handler) { reason in
            reason.contains("\(size) bytes") && reason.contains("'bound.value'")
        }
    }

    @Test func aConsumerWhoseDocumentIsExactlyTheSizeLimitIsRegisteredAndDelivered() async throws {
        let empty = try Handler(id: "Limits.take", bound: ["text": ""], registry: registry)
        let text = String(repeating: "a", count: sizeLimit - empty.jsonData().count)
        let handler = try Handler(id: "Limits.take", bound: ["text": text], registry: registry)
        #expect(handler.jsonData().count == sizeLimit)
        let (center, _) = try await startCenter(consumer: handler)
        try await center.post(signal)
        #expect(try await center.deliverDue() == 1)
        #expect(deliveries.all == ["depth -1 text \(text.utf8.count)"])
        try await center.stop()
    }

    /// Registers `handler`, expects `SignalError.invalidHandler` with a reason `check` accepts, and
    /// checks that no consumer was stored.
    private func expectRegistrationRefused(_ handler: Handler, reason check: (String) -> Bool) async throws {
        let store = InMemorySignalStore()
        let center = try await SignalCenter.start(
            component: "app", store: store, registry: registry,
            options: SignalCenter.Options(deliversAutomatically: false))
        do {
            try await center.register(handler, for: signal)
            Issue.record("the consumer was registered")
        } catch {
            guard case .invalidHandler("Limits.take", let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(check(reason), "\(reason)")
        }
        #expect(try await store.statistics().consumers == 0)
        try await center.stop()
    }
}
