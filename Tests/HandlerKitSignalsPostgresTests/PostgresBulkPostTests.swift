// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
import Foundation
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

@Suite(
    "Signals on PostgreSQL: bulk posts",
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresBulkPostTests {
    let folder = TemporaryFolder()

    /// A bulk post records its answer once, for the whole transaction (a try after a lost connection
    /// reads it), not once more for each of its posts; a single post records its own.
    @Test func aBulkPostRecordsOneAnswerForTheBatch() async throws {
        let store = try PostgresTestServer.store(folder: folder.path)
        let registry = try makeRegistry(Recorder())
        let center = try await manualCenter("app", store: store, registry: registry)
        try await center.register(
            try Handler(id: "Sink.receive", registry: registry), for: "a", delivery: .everyRevision)
        let schema = PostgresTestServer.schema(for: folder.path)
        let before = try #require(try await PostgresTestServer.selectInteger("count(*) FROM \(schema).operations"))
        let results = try await center.post((0..<10).map { SignalPost("a", payload: ["item": $0]) })
        #expect(results.map(\.revision) == Array(1...10))
        let afterBulk = try #require(try await PostgresTestServer.selectInteger("count(*) FROM \(schema).operations"))
        #expect(afterBulk - before == 1)
        try await center.post("a", payload: ["item": 10])
        let afterPost = try #require(try await PostgresTestServer.selectInteger("count(*) FROM \(schema).operations"))
        #expect(afterPost - afterBulk == 1)
        try await center.stop()
        await store.close()
    }
}
#endif
