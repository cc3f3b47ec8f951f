import HandlerKit
import Testing

/// Compiles the generated file for the fixture module (`Fixture/`, every form of `@handler` declaration) and
/// calls each handler through the runtime: created through its generated reference, written as JSON,
/// rebuilt from the JSON and called with call-time values (the typed calls are tested in
/// `TypedCallTests.swift`, part of this suite).
///
/// `Generated/HandlerTable+GeneratedCodeTests.swift` is checked in; HandlerGeneratorTests regenerates it
/// from `Fixture/` and compares it byte for byte (re-record with `HANDLERKIT_RECORD=1`).
@Suite(.serialized) struct GeneratedCodeTests {
    let registry = HandlerRegistry()

    init() throws {
        try registry.register(.generatedCodeTests)
        _ = Recorder.shared.take()
    }

    /// `handler` written as JSON and rebuilt from it.
    func fromJSON(_ handler: Handler) throws -> Handler {
        try Handler(json: handler.jsonString(), registry: registry)
    }

    @Test func tableHoldsEveryActiveHandlerAndNoInactiveOne() {
        #expect(
            registry.registeredIDs.sorted() == [
                "Banner.show", "Carbons.enabled", "Conditional.active", "Conditional.fallback", "OMEMO.bundleFetched",
                "Outer.Inner.convert", "Outer.Inner.wait", "Paging.fetch", "Screens.dismiss", "Screens.present",
                "Service.restart", "Session.send", "chain", "cleanup.v1", "greet", "ping",
            ])
    }

    @Test func staticHandlerWithNestedTypeAndDefaults() throws {
        let handler = try Carbons.enabledHandler(
            account: Account(id: "a1"), iqNode: .init(id: "iq1"), registry: registry)
        let rebuilt = try fromJSON(handler)
        try rebuilt.callSynchronously()
        try rebuilt.callSynchronously(["limit": 3, "note": "hello"])
        #expect(Recorder.shared.take() == ["enabled a1 iq1 10 nil", "enabled a1 iq1 3 hello"])
    }

    @Test func classMethodThatThrows() throws {
        let handler = try fromJSON(try Service.restartHandler(registry: registry))
        try handler.callSynchronously(["reason": "update"])
        #expect(Recorder.shared.take() == ["restart update [1, 2]"])
        #expect(throws: FixtureError(reason: "empty")) { try handler.callSynchronously(["reason": ""]) }
    }

    @Test func asyncInstanceHandlerFindsItsObjectThroughInstance() async throws {
        let handler = try OMEMO.bundleFetchedHandler(
            account: Account(id: "alice"), jid: "bob@example.org", success: true, registry: registry)
        let rebuilt = try fromJSON(handler)
        try await rebuilt.call(["rid": "42"])
        try await rebuilt.call(["rid": "43", "errorReason": "late"])
        #expect(
            Recorder.shared.take() == [
                "bundleFetched alice bob@example.org true nil 42", "bundleFetched alice bob@example.org true late 43",
            ])
        await #expect(throws: FixtureError(reason: "fetch")) {
            try await rebuilt.call(["rid": "1", "success": false, "errorReason": "fail"])
        }
    }

    @Test func nestedTypeInExtensionOfDottedType() throws {
        let handler = try fromJSON(try Outer.Inner.convertHandler(kind: .large, registry: registry))
        try handler.callSynchronously()
        try handler.callSynchronously(["values": ["a": 1, "b": 2]])
        #expect(Recorder.shared.take() == ["convert large 0", "convert large 3"])
    }

    @Test func asyncStaticHandler() async throws {
        let handler = try fromJSON(try Outer.Inner.waitHandler(milliseconds: 1, registry: registry))
        try await handler.call()
        #expect(Recorder.shared.take() == ["wait 1"])
    }

    @Test func conditionalHandlers() throws {
        try fromJSON(try Conditional.activeHandler(value: 7, registry: registry)).callSynchronously()
        try fromJSON(try Conditional.fallbackHandler(registry: registry)).callSynchronously()
        #expect(Recorder.shared.take() == ["active 7", "fallback fallback"])
    }

    @Test func fileScopeHandlersWithExplicitIDAndWithoutParameters() throws {
        try fromJSON(try cleanUpHandler(reason: "done", registry: registry)).callSynchronously()
        try fromJSON(try pingHandler(registry: registry)).callSynchronously()
        #expect(Recorder.shared.take() == ["cleanUp done", "ping"])
    }

    @Test func optionalParameterWithNonNilDefault() throws {
        let handler = try fromJSON(try greetHandler(registry: registry))
        try handler.callSynchronously()
        try handler.callSynchronously(["name": "you"])
        try fromJSON(try greetHandler(name: "bound", registry: registry)).callSynchronously()
        #expect(Recorder.shared.take() == ["greet world", "greet you", "greet bound"])
    }

    @Test func nestedHandlerIsBoundAndCalled() throws {
        let inner = try cleanUpHandler(reason: "nested", registry: registry)
        let outer = try fromJSON(try chainHandler(next: inner, times: 2, registry: registry))
        try outer.callSynchronously()
        #expect(Recorder.shared.take() == ["cleanUp nested", "cleanUp nested"])
    }

    @Test func stringIDFormAndInvalidationTarget() throws {
        let handler = try Handler(id: "cleanup.v1", invalidation: "ping", registry: registry)
        try fromJSON(handler).callSynchronously(["reason": "by id"])
        try fromJSON(handler).invalidateSynchronously(["reason": "unused"])
        #expect(Recorder.shared.take() == ["cleanUp by id", "ping"])
    }

    @Test func missingMandatoryArgumentIsATypedError() throws {
        let handler = try fromJSON(try cleanUpHandler(registry: registry))
        #expect(throws: HandlerError.self) { try handler.callSynchronously() }
        #expect(Recorder.shared.take().isEmpty)
    }
}
