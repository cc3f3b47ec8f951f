// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection
import HandlerKitSignalsPostgres
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// `PostgresSignalStore(inspecting:)`: an operator's look at a schema, which creates, migrates and
/// writes nothing.
@Suite(
    "Signals on PostgreSQL: opened for inspection",
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresInspectionTests {
    let folder = TemporaryFolder()

    func settings(schema: String? = nil) throws -> PostgresSettings {
        var settings = try PostgresSettings(url: try PostgresTestServer.requireURL())
        settings.schema = schema ?? PostgresTestServer.schema(for: folder.path)
        return settings
    }

    @Test func aStoreIsReadAndNeverWritten() async throws {
        let store = try PostgresTestServer.store(folder: folder.path)
        let center = try await SignalCenter.start(
            component: "app", store: store, registry: try makeRegistry(Recorder()),
            options: .init(retry: RetryPolicy(maximumAttempts: 1), deliversAutomatically: false))
        _ = try await center.register(try Handler(id: "Sink.fail", registry: center.registry), for: "bad")
        _ = try await center.post("bad")
        _ = try await center.deliverDue()

        let inspecting = try PostgresSignalStore(inspecting: try settings())
        let status = try await SignalStoreInspector(store: inspecting).status()
        #expect(status.deadDeliveries == 1)
        #expect(status.runs.map(\.runID) == [center.runID])
        #expect(status.runs.first?.isAlive == true)
        #expect(status.runs.first?.host == PostgresSignalStore.Options().hostID)
        let refused = await #expect(throws: SignalError.self) {
            _ = try await SignalStoreInspector(store: inspecting).requeue(matching: DeliveryFilter())
        }
        guard case .storeReadOnly? = refused else {
            Issue.record("expected storeReadOnly, found \(String(describing: refused))")
            return
        }
        try await center.stop()
        await store.close()
        await inspecting.close()
    }

    @Test func aMissingSchemaIsNotAStoreAndIsNotCreated() async throws {
        let schema = PostgresTestServer.schema(for: folder.path + "/missing")
        let inspecting = try PostgresSignalStore(inspecting: try settings(schema: schema))
        let error = await #expect(throws: SignalError.self) { _ = try await inspecting.statistics() }
        guard case .notASignalStore(_, let found)? = error else {
            Issue.record("expected notASignalStore, found \(String(describing: error))")
            return
        }
        #expect(found.contains("'\(schema)'"), "\(found)")
        await inspecting.close()

        // A store opened for writing makes it at its first use, empty.
        let store = try PostgresSignalStore(settings: try settings(schema: schema))
        #expect(try await store.statistics() == SignalStoreStatistics())
        await store.close()
    }
}
#endif
