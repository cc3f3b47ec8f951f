import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// `SignalStoreInspector.checkStoredHandlers`: every stored handler of a store snapshot rebuilt under
/// a build's registry, with the errors its deliveries would get.
@Suite("Signals: stored handlers checked against a build's registry")
struct StoredHandlerCheckTests {
    let folder = TemporaryFolder()

    /// A store (ended run) with a consumer of `Sink.receive` and one of its deliveries pending.
    func makeSnapshot() async throws -> (path: String, consumer: ConsumerID) {
        let path = folder.path + "/snapshot.sqlite"
        let center = try await SignalCenter.start(
            component: "app", store: try SQLiteSignalStore(path: path), registry: try makeRegistry(Recorder()),
            options: .init(deliversAutomatically: false))
        let consumer = try await center.register(
            try Handler(id: "Sink.receive", registry: center.registry), for: "s", delivery: .everyRevision)
        _ = try await center.post("s", payload: ["item": 1])
        try await center.stop()
        return (path, consumer)
    }

    /// A later build where `Sink.receive` takes its `item` as a `String`.
    func changedRegistry() throws -> HandlerRegistry {
        let registry = HandlerRegistry()
        try registry.register(
            HandlerTable(
                module: "Later",
                handlers: [
                    HandlerDescriptor(
                        id: "Sink.receive",
                        parameters: [
                            .required("item", String.self), .optional("note", String.self),
                            .required("deliveryKey", String.self), .required("signalRevision", Int.self),
                        ], invoke: { _ in })
                ]))
        return registry
    }

    @Test func theCurrentBuildRebuildsEverything() async throws {
        let (path, _) = try await makeSnapshot()
        let inspector = SignalStoreInspector(store: try SQLiteSignalStore(inspecting: path))
        #expect(try await inspector.checkStoredHandlers(registry: try makeRegistry(Recorder())).isEmpty)
    }

    @Test func aRemovedHandlerIsReportedForItsConsumerAndItsDelivery() async throws {
        let (path, consumer) = try await makeSnapshot()
        let inspector = SignalStoreInspector(store: try SQLiteSignalStore(inspecting: path))
        let problems = try await inspector.checkStoredHandlers(registry: HandlerRegistry())
        #expect(problems.map(\.key) == [nil, DeliveryKey("\(consumer.rawValue)/1")])
        #expect(problems.allSatisfy { $0.consumerID == consumer && $0.handlerID == "Sink.receive" })
        #expect(
            problems.last?.error == .handlerNotRegistered(handler: "Sink.receive", delivery: "\(consumer.rawValue)/1"))
        #expect("\(problems[0])".hasPrefix("consumer \(consumer) (component 'app', signal 's', handler Sink.receive)"))
    }

    @Test func aPayloadThatNoLongerFitsIsTheErrorItsDeliveryWouldGet() async throws {
        let (path, consumer) = try await makeSnapshot()
        let inspector = SignalStoreInspector(store: try SQLiteSignalStore(inspecting: path))
        let problems = try await inspector.checkStoredHandlers(registry: try changedRegistry())
        #expect(problems.count == 1, "\(problems)")
        guard case .invalidPayload(let signal, let argument, let reason)? = problems.first?.error else {
            Issue.record("expected invalidPayload, found \(problems)")
            return
        }
        #expect(signal == "s" && argument == "item", "\(reason)")
        #expect(problems.first?.key == DeliveryKey("\(consumer.rawValue)/1"))

        // The same error a delivery gets: a center of the later build parks the delivery dead with it.
        let center = try await SignalCenter.start(
            component: "app", store: try SQLiteSignalStore(path: path), registry: try changedRegistry(),
            options: .init(deliversAutomatically: false))
        _ = try await center.deliverDue()
        let dead = try await center.deadDeliveries()
        #expect(dead.map(\.reason) == [problems[0].error.description])
        try await center.stop()
    }

    @Test func aSnapshotThatIsNotAStoreIsAnError() async throws {
        let path = folder.path + "/missing.sqlite"
        #expect(throws: SignalError.self) { try SQLiteSignalStore(inspecting: path) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
