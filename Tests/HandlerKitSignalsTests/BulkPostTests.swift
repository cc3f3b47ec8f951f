import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

@Suite("Signals: bulk posts")
struct BulkPostTests {
    private let recorder = Recorder()
    private let registry: HandlerRegistry

    init() throws {
        registry = try makeRegistry(recorder)
    }

    @Test(arguments: ["memory", "sqlite"])
    func aBulkPostWithAPostThatCannotBeStoredStoresNoneOfThem(_ kind: String) async throws {
        let folder = TemporaryFolder()
        let store: any SignalStore =
            kind == "memory" ? InMemorySignalStore() : try SQLiteSignalStore(path: folder.path + "/signals.sqlite")
        let center = try await manualCenter("app", store: store, registry: registry)
        try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "a")
        let cases: [(post: SignalPost, expected: (SignalError) -> Bool)] = [
            (SignalPost(" a", payload: ["item": 2]), { if case .invalidSignalID = $0 { true } else { false } }),
            (
                SignalPost("b", payload: ["deliveryKey": "mine"]),
                { if case .invalidPayload(let signal, _, _) = $0 { signal == "b" } else { false } }
            ),
            (
                SignalPost("c", notBefore: Date(timeIntervalSince1970: .infinity)),
                { if case .invalidDeliveryTime(let signal, _) = $0 { signal == "c" } else { false } }
            ),
        ]
        for (post, expected) in cases {
            let error = await #expect(throws: SignalError.self) {
                try await center.post([SignalPost("a", payload: ["item": 1]), post])
            }
            #expect(error.map(expected) == true, "\(String(describing: error))")
        }
        #expect(try await center.openDeliveries() == 0)
        #expect(try await store.statistics().signals == 0)
        // The next post of the signal is its first revision: none of the above was stored.
        #expect(try await center.post([SignalPost("a", payload: ["item": 1])]).map(\.revision) == [1])
        try await center.stop()
    }

    @Test func aLargeBulkPostIsMadeWholeInItsOrder() async throws {
        let center = try await manualCenter("app", store: InMemorySignalStore(), registry: registry)
        try await center.register(
            try Handler(id: "Sink.receive", registry: registry), for: "a", delivery: .everyRevision)
        let results = try await center.post((0..<20_000).map { SignalPost("a", payload: ["item": $0]) })
        #expect(results.map(\.revision) == Array(1...20_000))
        #expect(results.allSatisfy { $0.deliveries == 1 })
        #expect(try await center.openDeliveries() == 20_000)
        try await center.stop()
    }

    @Test func aBulkPostWakesTheOneRunItsConsumersBelongToOrEveryCenter() {
        #expect(WakeTarget.either(nil, nil) == nil)
        #expect(WakeTarget.either(.run("r1"), nil) == .run("r1"))
        #expect(WakeTarget.either(nil, .run("r1")) == .run("r1"))
        #expect(WakeTarget.either(.run("r1"), .run("r1")) == .run("r1"))
        #expect(WakeTarget.either(.run("r1"), .run("r2")) == .everyCenter)
        #expect(WakeTarget.either(.everyCenter, .run("r1")) == .everyCenter)
    }

    @Test func aBulkPostsAnswerIsRecordedAndReadBackInItsOrder() {
        let postings = [
            Posting(signalID: "a", payload: [], keepUntil: nil),
            Posting(signalID: "b", payload: [], keepUntil: Date()),
        ]
        let text = RecordedText<[PostResult]>.posts(postings)
        let results = [postings[0].result(revision: 3, deliveries: 2), postings[1].result(revision: 1, deliveries: 0)]
        #expect(text.encode(results) == "3 2 1 0")
        #expect(text.decode("3 2 1 0") == results)
        #expect(text.decode("3 2 1") == nil)
        #expect(text.decode("3 2 x 0") == nil)
    }
}
