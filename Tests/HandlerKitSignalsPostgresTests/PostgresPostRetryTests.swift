// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL && canImport(Glibc)
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit
import HandlerKitSignalsPostgres
import SignalsTestSupport
import Testing

/// A write whose connection is lost mid-statement is tried again on a fresh connection and applied
/// exactly once, whether the server had applied it (its answer lost) or never received it. The
/// connection is really cut, by a proxy between the store and the server (ConnectionCutter).
@Suite(
    "Signals on PostgreSQL: a write whose connection is lost mid-statement",
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresPostRetryTests {
    /// The name postgres-nio prepares the store's post statement under (`String(reflecting:)` of its type).
    static let postStatement = "HandlerKitSignalsPostgres.PostgresStatements.Post"

    /// A store in a schema of its own for `folder`, whose connections go through a new cutter (stop
    /// it at the end). The cutter reads the protocol to find the statements: they travel in the clear.
    static func storeBehindACutter(_ folder: TemporaryFolder) throws -> (PostgresSignalStore, ConnectionCutter) {
        var settings = try PostgresSettings(url: try PostgresTestServer.requireURL())
        settings.schema = PostgresTestServer.schema(for: folder.path)
        let cutter = try ConnectionCutter(serverPort: settings.port)
        settings.port = cutter.port
        settings.tlsMode = .disable
        do {
            return (try PostgresSignalStore(settings: settings), cutter)
        } catch {
            cutter.stop()
            throw error
        }
    }

    @Test(arguments: [ConnectionCutter.Cut.afterAnswer, .beforeServer])
    func aPostWhoseConnectionIsLostIsTriedAgainAndStoredOnce(cut: ConnectionCutter.Cut) async throws {
        let folder = TemporaryFolder()
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let (store, cutter) = try Self.storeBehindACutter(folder)
        defer { cutter.stop() }
        let center = try await manualCenter("app", store: store, registry: registry)
        let consumer = try await center.register(
            try Handler(id: "Sink.receive", registry: registry), for: "progress",
            delivery: .everyRevision)

        cutter.arm(statement: Self.postStatement, cut: cut)
        let first = try await center.post("progress", payload: ["item": 1])
        #expect(cutter.cuts == 1, "the post's connection was cut")
        #expect(first.revision == 1 && first.deliveries == 1, "\(first)")
        let second = try await center.post("progress", payload: ["item": 2])
        #expect(second.revision == 2, "revision 1 was stored once")
        #expect(try await center.deliverDue() == 2)
        #expect(recorder.all.map(\.item) == [1, 2])
        for revision in 1...2 {
            #expect(try await store.completions(of: DeliveryKey("\(consumer.rawValue)/\(revision)")).count == 1)
        }
        try await center.stop()
        await store.close()
    }

    /// A completion whose answer is lost with its connection, after the server applied it, is tried
    /// again and found in the history by its run and attempt: it counts as completed, once.
    @Test func aCompletionWhoseAnswerWasLostCountsAsCompletedOnce() async throws {
        let folder = TemporaryFolder()
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let (store, cutter) = try Self.storeBehindACutter(folder)
        defer { cutter.stop() }
        let center = try await manualCenter("app", store: store, registry: registry)
        let consumer = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "progress")
        #expect(try await center.post("progress", payload: ["item": 1]).deliveries == 1)

        cutter.arm(statement: "HandlerKitSignalsPostgres.PostgresStatements.Complete", cut: .afterAnswer)
        #expect(try await center.deliverDue() == 1, "the delivery counts as completed")
        #expect(cutter.cuts == 1, "the completion's connection was cut")
        #expect(try await store.completions(of: DeliveryKey("\(consumer.rawValue)/1")).count == 1)
        #expect(try await center.openDeliveries() == 0)
        #expect(try await center.deliverDue() == 0, "nothing runs again")
        #expect(recorder.all.count == 1)
        try await center.stop()
        await store.close()
    }

    /// A registration (a plan of the core, made in one transaction) whose connection is lost once the
    /// server has committed it is tried again on a fresh connection, which finds the write's id
    /// recorded and returns its answer: the consumer is registered once, and the call succeeds.
    @Test func aPlanWhoseCommitWasAnsweredOnALostConnectionIsAppliedOnce() async throws {
        let folder = TemporaryFolder()
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let (store, cutter) = try Self.storeBehindACutter(folder)
        defer { cutter.stop() }
        let center = try await manualCenter("app", store: store, registry: registry)

        cutter.arm(transactionRunning: "INSERT INTO consumers")
        let consumer = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "progress")
        #expect(cutter.cuts == 1, "the registration's connection was cut")
        #expect(try await store.statistics().consumers == 1, "the consumer was registered once")
        #expect(try await center.post("progress", payload: ["item": 1]).deliveries == 1)
        #expect(try await center.deliverDue() == 1)
        #expect(recorder.all.map(\.deliveryKey) == ["\(consumer.rawValue)/1"])
        try await center.stop()
        await store.close()
    }
}
#endif
