import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
import Testing

/// The first mistakes a newcomer makes are reported where they are made, saying what to do.
@Suite("Mistakes explain themselves")
struct MistakeMessageTests {
    let recorder = Recorder()
    let registry: HandlerRegistry

    init() throws { registry = try makeRegistry(recorder) }

    @Test func anEmptyRegistrySaysThatNoTableIsRegisteredAndHowToRegisterOne() throws {
        let empty = HandlerRegistry()
        let error = #expect(throws: HandlerError.self) { try Handler(id: "Uploads.finished", registry: empty) }
        #expect(error == .noHandlersRegistered(id: "Uploads.finished", path: "id"))
        let message = try #require(error?.description)
        #expect(
            message.hasPrefix(
                "handler id 'Uploads.finished' at 'id' cannot be resolved: no handler table is registered;"))
        #expect(message.contains("`try HandlerRegistry.shared.register(.myModule)`"))
        // Documents read with an empty registry say the same.
        let document = #"{"id":"Counter.add","version":1}"#
        #expect(throws: HandlerError.noHandlersRegistered(id: "Counter.add", path: "id")) {
            try Handler(json: document, registry: empty)
        }
    }

    @Test func aGeneratedReferenceNamesTheTableOfItsModuleWhenThatIsNotRegistered() throws {
        // What a generated `Uploads.finishedHandler(id:)` of module SyncCore runs.
        for candidate in [HandlerRegistry(), registry] {
            let error = #expect(throws: HandlerError.self) {
                try Handler(
                    id: "Uploads.finished", module: "SyncCore", table: "syncCore", bound: ["id": 1], registry: candidate
                )
            }
            #expect(error == .moduleNotRegistered(id: "Uploads.finished", module: "SyncCore", table: "syncCore"))
            #expect(
                error?.description == "handler 'Uploads.finished' belongs to module SyncCore, whose handler table is "
                    + "not registered; register it once at start-up: `try HandlerRegistry.shared.register(.syncCore)`")
        }
        // Once the module is registered, the reference resolves; an id it lacks is an unknown id.
        let handler = try Handler(
            id: "Uploads.finished", module: "Fixtures", table: "fixtures", bound: ["id": 1], registry: registry)
        #expect(handler.id == "Uploads.finished")
        #expect(throws: HandlerError.unknownHandler(id: "Uploads.gone", path: "id")) {
            try Handler(id: "Uploads.gone", module: "Fixtures", table: "fixtures", registry: registry)
        }
    }

    @Test func aModuleWithoutHandlersCountsAsRegistered() throws {
        let registry = HandlerRegistry()
        try registry.register(HandlerTable(module: "Empty", handlers: []))
        #expect(registry.registeredModules == ["Empty"])
        #expect(throws: HandlerError.unknownHandler(id: "Empty.none", path: "id")) {
            try Handler(id: "Empty.none", module: "Empty", table: "empty", registry: registry)
        }
        #expect(throws: HandlerError.unknownHandler(id: "Other.none", path: "id")) {
            try Handler(id: "Other.none", registry: registry)
        }
    }

    @Test func aSynchronousCallOfAnAsyncHandlerSaysHowToCallIt() throws {
        let handler = try Handler(id: "Uploads.finished", bound: ["id": 1], registry: registry)
        let error = #expect(throws: HandlerError.self) { try handler.callSynchronously() }
        #expect(error == .requiresAsync(handler: "Uploads.finished"))
        #expect(
            error?.description == "handler 'Uploads.finished' is async or isolated to an actor, so it cannot run "
                + "synchronously; call it with `try await handler.call()` (or `invalidate()`)")
    }

    @Test func callRunsSynchronousAndAsyncHandlersAlike() async throws {
        try await Handler(id: "Uploads.finished", bound: ["id": 1], registry: registry).call()
        try await Handler(id: "Counter.add", bound: ["amount": 2], registry: registry).call()
        #expect(recorder.all == ["finished 1", "add 2"])
    }

    @Test func aTruncatedDocumentIsCalledTruncatedAndNotHandlerJSON() throws {
        let full = try Handler(id: "Counter.add", bound: ["amount": 2], registry: registry).jsonString()
        for length in [1, full.count / 2, full.count - 1] {
            let error = #expect(throws: HandlerError.self) {
                try Handler(json: String(full.prefix(length)), registry: registry)
            }
            guard case .malformedJSON(let reason, _, _, let offset)? = error else {
                Issue.record("a truncated document gave \(String(describing: error))")
                continue
            }
            #expect(reason.hasSuffix(": the document is truncated"), "\(reason)")
            #expect(offset == length)
            #expect(error?.description.hasPrefix("malformed JSON at line 1") == true)
        }
        // A malformed document that is complete is not called truncated.
        let error = #expect(throws: HandlerError.self) {
            try Handler(json: #"{"id":,"version":1}"#, registry: registry)
        }
        #expect(error?.description.contains("truncated") == false)
    }
}
