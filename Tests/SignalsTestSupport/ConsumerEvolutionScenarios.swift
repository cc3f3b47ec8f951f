import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit
import Testing

/// Consumers outlive the build that registered them: the next version of the app, which renamed the
/// handler's function and a parameter with former names, still delivers to them; a consumer whose
/// handler is gone altogether is parked as dead, never dropped.
package struct ConsumerEvolutionScenarios {
    package init() {}

    let folder = TemporaryFolder()
    let recorder = Recorder()

    /// Version 1: `Upload.finished(label:item:deliveryKey:)` and `Upload.obsolete(deliveryKey:)`.
    func version1() throws -> HandlerRegistry {
        let registry = HandlerRegistry()
        try registry.register(
            HandlerTable(
                module: "SignalAppV1",
                handlers: [
                    HandlerDescriptor(
                        id: "Upload.finished",
                        parameters: [
                            .required("label", String.self), .required("item", Int.self),
                            .required("deliveryKey", String.self),
                        ],
                        invoke: { _ in Issue.record("version 1's handler must not run in version 2") }
                    ),
                    HandlerDescriptor(
                        id: "Upload.obsolete", parameters: [.required("deliveryKey", String.self)], invoke: { _ in }),
                ]))
        return registry
    }

    /// Version 2: the function is `Transfer.completed` now, `label` is `tag`; `Upload.obsolete` is gone.
    func version2() throws -> HandlerRegistry {
        let registry = HandlerRegistry()
        let recorder = recorder
        try registry.register(
            HandlerTable(
                module: "SignalAppV2",
                handlers: [
                    HandlerDescriptor(
                        id: "Transfer.completed", formerIDs: ["Upload.finished"],
                        parameters: [
                            .required("tag", String.self, formerly: ["label"]), .required("item", Int.self),
                            .required("deliveryKey", String.self),
                        ],
                        invoke: { arguments in
                            recorder.add(
                                Received(
                                    handler: "Transfer.completed", item: try arguments.required("item"),
                                    note: try arguments.required("tag"),
                                    deliveryKey: try arguments.required("deliveryKey"), revision: 1))
                        }
                    )
                ]))
        return registry
    }

    package func aConsumerRegisteredByTheOldVersionIsDeliveredUnderItsNewNames(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let old = try version1()
        let first = try await manualCenter("app", store: store, registry: old)
        let consumer = try await first.register(
            try Handler(id: "Upload.finished", bound: ["label": "v1"], registry: old), for: "upload")
        try await first.stop()

        let updated = try version2()
        let poster = try await manualCenter("sync", store: store, registry: updated)
        #expect(try await poster.post("upload", payload: ["item": 5]).deliveries == 1)
        let next = try await manualCenter("app", store: store, registry: updated)
        #expect(try await next.deliverDue() == 1)
        #expect(
            recorder.all == [
                Received(
                    handler: "Transfer.completed", item: 5, note: "v1",
                    deliveryKey: "\(consumer.rawValue)/1", revision: 1)
            ])
        #expect(try await next.deadDeliveries().isEmpty)
        try await next.stop()
        try await poster.stop()
    }

    package func aConsumerWhoseHandlerIsGoneIsParkedAsDeadNotDropped(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let old = try version1()
        let first = try await manualCenter("app", store: store, registry: old)
        let consumer = try await first.register(try Handler(id: "Upload.obsolete", registry: old), for: "cleanup")
        try await first.stop()

        let updated = try version2()
        let next = try await manualCenter("app", store: store, registry: updated)
        #expect(try await next.post("cleanup").deliveries == 1)
        _ = try await next.deliverDue()
        let dead = try await next.deadDeliveries()
        #expect(dead.map(\.key) == [DeliveryKey("\(consumer.rawValue)/1")])
        #expect(dead.first?.reason.contains("Upload.obsolete") == true, "\(dead)")
        #expect(try await store.statistics().consumers == 1, "the consumer stays while its delivery is dead")
        #expect(recorder.all.isEmpty)
        try await next.stop()
    }
}
