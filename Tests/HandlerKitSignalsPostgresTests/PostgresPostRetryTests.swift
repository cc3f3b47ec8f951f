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

    /// What each test works with: a center of component "app" on a store in a schema of its own,
    /// whose connections go through a cutter. The cutter reads the protocol to find the statements:
    /// they travel in the clear.
    struct Setup {
        let folder = TemporaryFolder()
        let recorder = Recorder()
        let registry: HandlerRegistry
        let store: PostgresSignalStore
        let cutter: ConnectionCutter
        let center: SignalCenter

        /// Runs `body` with a new set-up; stops its center, store and cutter afterwards (the cutter
        /// also when `body` throws).
        static func run(_ body: (Setup) async throws -> Void) async throws {
            let setup = try await Setup()
            do {
                try await body(setup)
            } catch {
                setup.cutter.stop()
                throw error
            }
            try await setup.center.stop()
            await setup.store.close()
            setup.cutter.stop()
        }

        private init() async throws {
            registry = try makeRegistry(recorder)
            var settings = try PostgresSettings(url: try PostgresTestServer.requireURL())
            settings.schema = PostgresTestServer.schema(for: folder.path)
            cutter = try ConnectionCutter(serverPort: settings.port)
            settings.port = cutter.port
            settings.tlsMode = .disable
            do {
                store = try PostgresSignalStore(settings: settings)
                center = try await manualCenter("app", store: store, registry: registry)
            } catch {
                cutter.stop()
                throw error
            }
        }
    }

    @Test(arguments: [ConnectionCutter.Cut.afterAnswer, .beforeServer])
    func aPostWhoseConnectionIsLostIsTriedAgainAndStoredOnce(cut: ConnectionCutter.Cut) async throws {
        try await Setup.run { setup in
            let (center, cutter) = (setup.center, setup.cutter)
            let consumer = try await center.register(
                try Handler(id: "Sink.receive", registry: setup.registry), for: "progress",
                delivery: .everyRevision)

            cutter.arm(statement: Self.postStatement, cut: cut)
            let first = try await center.post("progress", payload: ["item": 1])
            #expect(cutter.cuts == 1, "the post's connection was cut")
            #expect(first.revision == 1 && first.deliveries == 1, "\(first)")
            let second = try await center.post("progress", payload: ["item": 2])
            #expect(second.revision == 2, "revision 1 was stored once")
            #expect(try await center.deliverDue() == 2)
            #expect(setup.recorder.all.map(\.item) == [1, 2])
            for revision in 1...2 {
                let key = DeliveryKey("\(consumer.rawValue)/\(revision)")
                #expect(try await setup.store.completions(of: key).count == 1)
            }
        }
    }

    /// A completion whose answer is lost with its connection, after the server applied it, is tried
    /// again and found in the history by its run and attempt: it counts as completed, once.
    @Test func aCompletionWhoseAnswerWasLostCountsAsCompletedOnce() async throws {
        try await Setup.run { setup in
            let (center, cutter) = (setup.center, setup.cutter)
            let consumer = try await center.register(
                try Handler(id: "Sink.receive", registry: setup.registry), for: "progress")
            #expect(try await center.post("progress", payload: ["item": 1]).deliveries == 1)

            cutter.arm(statement: "HandlerKitSignalsPostgres.PostgresStatements.Complete", cut: .afterAnswer)
            #expect(try await center.deliverDue() == 1, "the delivery counts as completed")
            #expect(cutter.cuts == 1, "the completion's connection was cut")
            #expect(try await setup.store.completions(of: DeliveryKey("\(consumer.rawValue)/1")).count == 1)
            #expect(try await center.openDeliveries() == 0)
            #expect(try await center.deliverDue() == 0, "nothing runs again")
            #expect(setup.recorder.all.count == 1)
        }
    }

    /// A registration (a plan of the core, made in one transaction) whose connection is lost once the
    /// server has committed it is tried again on a fresh connection, which finds the write's id
    /// recorded and returns its answer: the consumer is registered once, and the call succeeds.
    @Test func aPlanWhoseCommitWasAnsweredOnALostConnectionIsAppliedOnce() async throws {
        try await Setup.run { setup in
            let (center, cutter) = (setup.center, setup.cutter)
            cutter.arm(transactionRunning: "INSERT INTO consumers")
            let consumer = try await center.register(
                try Handler(id: "Sink.receive", registry: setup.registry), for: "progress")
            #expect(cutter.cuts == 1, "the registration's connection was cut")
            #expect(try await setup.store.statistics().consumers == 1, "the consumer was registered once")
            #expect(try await center.post("progress", payload: ["item": 1]).deliveries == 1)
            #expect(try await center.deliverDue() == 1)
            #expect(setup.recorder.all.map(\.deliveryKey) == ["\(consumer.rawValue)/1"])
        }
    }
}
#endif
