import HandlerKit
import Testing

/// In generated code: handlers isolated to the main actor, defaults the generated code
/// leaves to Swift, and compiler-checked invalidation targets.
///
/// An extension of `GeneratedCodeTests` so that these tests are serialized with the others, which
/// share `Recorder.shared`.
extension GeneratedCodeTests {
    @Test func handlerOfAMainActorTypeIsCalledOnIt() async throws {
        let handler = try Handler(
            json: Banner.showHandler(text: "hi", registry: registry).jsonData(), registry: registry)
        try await handler.call()
        try await Banner.callShowHandler(handler, text: "typed")
        #expect(Recorder.shared.take() == ["show hi", "show typed"])
        #expect(await Banner.shown.suffix(2) == ["hi", "typed"])
    }

    @Test func handlersIsolatedByTheirOwnOrTheirExtensionsAttribute() async throws {
        try await Screens.presentHandler(title: "t", registry: registry).call()
        let dismiss = try Screens.dismissHandler(registry: registry)
        try await dismiss.call()
        try await Screens.callDismissHandler(dismiss, animated: false)
        #expect(Recorder.shared.take() == ["present t", "dismiss true", "dismiss false"])
        #expect(await Banner.shown.suffix(3) == ["present", "dismiss", "dismiss"])
    }

    /// The shim hops to the actor, so the handler can only be called with `await`.
    @Test func synchronousCallOfAMainActorHandlerThrowsRequiresAsync() throws {
        let handler = try Banner.showHandler(text: "hi", registry: registry)
        #expect(throws: HandlerError.requiresAsync(handler: "Banner.show")) { try handler.callSynchronously() }
        #expect(Recorder.shared.take().isEmpty)
    }

    @Test func defaultsNamingPrivateSymbolsAreAppliedBySwift() throws {
        let handler = try Handler(json: Paging.fetchHandler(page: 1, registry: registry).jsonData(), registry: registry)
        try handler.callSynchronously()
        try handler.callSynchronously(["size": 5])
        try handler.callSynchronously(["origin": "here"])
        try Paging.callFetchHandler(handler, size: 7, origin: "typed")
        try Paging.callFetchHandler(handler)
        try Handler(json: Paging.fetchHandler(page: 2, size: 9, registry: registry).jsonData(), registry: registry)
            .callSynchronously()
        #expect(
            Recorder.shared.take() == [
                "fetch 1 25 inbox", "fetch 1 5 inbox", "fetch 1 25 here",
                "fetch 1 7 typed", "fetch 1 25 inbox", "fetch 2 9 inbox",
            ])
    }

    @Test func invalidationTargetThroughItsGeneratedID() throws {
        let handler = try cleanUpHandler(reason: "typed", invalidation: pingHandlerID, registry: registry)
        #expect(handler.invalidationID == "ping")
        #expect(Banner.showHandlerID == HandlerID("Banner.show"))
        try Handler(json: handler.jsonData(), registry: registry).invalidateSynchronously()
        #expect(Recorder.shared.take() == ["ping"])
    }

    @Test func unregisteredDynamicIDIsATypedError() throws {
        #expect(throws: HandlerError.unknownHandler(id: "nowhere", path: "invalidation")) {
            _ = try cleanUpHandler(invalidation: HandlerID("nowhere"), registry: registry)
        }
    }
}
