import HandlerKit
import Testing

/// The generated typed calls, `<Type>.call<Name>Handler(_:…)`: call-time values passed as typed
/// arguments (checked by the compiler, not boxed), each overriding the bound value of its name;
/// `nil` leaves the bound value, and the declaration's default applies when there is neither.
///
/// An extension of `GeneratedCodeTests` so that these tests are serialized with the others, which
/// share `Recorder.shared`.
extension GeneratedCodeTests {
    @Test func typedCallOfAStaticHandler() throws {
        let handler = try fromJSON(
            try Carbons.enabledHandler(account: Account(id: "a1"), iqNode: .init(id: "iq1"), registry: registry))
        try Carbons.callEnabledHandler(handler)
        try Carbons.callEnabledHandler(handler, limit: 3, note: "hello")
        try Carbons.callEnabledHandler(handler, account: Account(id: "a2"), iqNode: .init(id: "iq2"))
        #expect(Recorder.shared.take() == ["enabled a1 iq1 10 nil", "enabled a1 iq1 3 hello", "enabled a2 iq2 10 nil"])
    }

    @Test func typedValuesOverrideBoundOnesAndNilLeavesThem() throws {
        let handler = try fromJSON(
            try Carbons.enabledHandler(
                account: Account(id: "a1"), iqNode: .init(id: "iq1"), limit: 5, note: "bound", registry: registry))
        try Carbons.callEnabledHandler(handler)
        try Carbons.callEnabledHandler(handler, limit: 7)
        try Carbons.callEnabledHandler(handler, limit: nil, note: "typed")
        #expect(
            Recorder.shared.take() == ["enabled a1 iq1 5 bound", "enabled a1 iq1 7 bound", "enabled a1 iq1 5 typed"])
    }

    /// `greet(name: String? = "world")`: an optional parameter whose default is not `nil`.
    @Test func theDefaultAppliesWhenNeitherACallTimeNorABoundValueIsThere() throws {
        let unbound = try fromJSON(try greetHandler(registry: registry))
        try callGreetHandler(unbound)
        try callGreetHandler(unbound, name: "you")
        let bound = try fromJSON(try greetHandler(name: "bound", registry: registry))
        try callGreetHandler(bound)
        try callGreetHandler(bound, name: "you")
        #expect(Recorder.shared.take() == ["greet world", "greet you", "greet bound", "greet you"])
    }

    /// The instance handler's `instance: "account.omemo"` finds its object through the call-time
    /// account when one is passed.
    @Test func typedCallOfAnAsyncInstanceHandler() async throws {
        let handler = try fromJSON(
            try OMEMO.bundleFetchedHandler(
                account: Account(id: "alice"), jid: "bob@example.org", success: true, registry: registry))
        try await OMEMO.callBundleFetchedHandler(handler, rid: "42")
        try await OMEMO.callBundleFetchedHandler(handler, account: Account(id: "carol"), errorReason: "late", rid: "43")
        #expect(
            Recorder.shared.take() == [
                "bundleFetched alice bob@example.org true nil 42", "bundleFetched carol bob@example.org true late 43",
            ])
        await #expect(throws: FixtureError(reason: "fetch")) {
            try await OMEMO.callBundleFetchedHandler(handler, success: false, errorReason: "fail", rid: "1")
        }
    }

    @Test func typedCallOfAnAsyncStaticHandler() async throws {
        let handler = try fromJSON(try Outer.Inner.waitHandler(registry: registry))
        try await Outer.Inner.callWaitHandler(handler, milliseconds: 2)
        #expect(Recorder.shared.take() == ["wait 2"])
    }

    /// `Connection` is not `Codable`: it cannot be bound, but a typed call passes it as it is, and the
    /// default of `retries` (the static member `Session.retries`) applies.
    @Test func aValueThatCannotBeBoundIsPassedTyped() throws {
        let connection = Connection(name: "c1")
        #expect(throws: HandlerError.notBindable(handler: "Session.send", argument: "connection", type: "Connection")) {
            _ = try Session.sendHandler(connection: connection, registry: registry)
        }
        let handler = try fromJSON(try Session.sendHandler(text: "hi", registry: registry))
        try Session.callSendHandler(handler, connection: connection)
        try Session.callSendHandler(handler, text: "typed", connection: connection, retries: 3)
        #expect(Recorder.shared.take() == ["send hi over c1 retries 1", "send typed over c1 retries 3"])
    }

    @Test func otherFormsThroughTheirTypedCalls() throws {
        try callPingHandler(try pingHandler(registry: registry))
        try Outer.Inner.callConvertHandler(
            try Outer.Inner.convertHandler(kind: .small, registry: registry), values: ["a": 4])
        try Conditional.callActiveHandler(try Conditional.activeHandler(registry: registry), value: 8)
        let inner = try cleanUpHandler(reason: "nested", registry: registry)
        try callChainHandler(try chainHandler(registry: registry), next: inner)
        let restart = try fromJSON(try Service.restartHandler(registry: registry))
        try Service.callRestartHandler(restart, reason: "update", attempts: [3])
        #expect(throws: FixtureError(reason: "empty")) { try Service.callRestartHandler(restart, reason: "") }
        #expect(
            Recorder.shared.take() == ["ping", "convert small 4", "active 8", "cleanUp nested", "restart update [3]"])
    }

    @Test func aHandlerOfAnotherFunctionIsRefused() throws {
        let handler = try fromJSON(try cleanUpHandler(reason: "r", registry: registry))
        #expect(throws: HandlerError.wrongHandler(handler: "cleanup.v1", expected: "Carbons.enabled")) {
            try Carbons.callEnabledHandler(handler, account: Account(id: "a"), iqNode: .init(id: "iq"))
        }
        #expect(Recorder.shared.take().isEmpty)
    }

    @Test func anInvalidatedHandlerIsRefused() throws {
        let handler = try cleanUpHandler(reason: "r", registry: registry)
        try handler.invalidateSynchronously()
        #expect(throws: HandlerError.invalidated(handler: "cleanup.v1")) { try callCleanUpHandler(handler) }
        #expect(Recorder.shared.take().isEmpty)
    }

    @Test func aMissingMandatoryValueIsATypedError() throws {
        let handler = try fromJSON(try cleanUpHandler(registry: registry))
        #expect(throws: HandlerError.missingArgument(handler: "cleanup.v1", argument: "reason", expectedType: "String"))
        {
            try callCleanUpHandler(handler)
        }
        let send = try Session.sendHandler(text: "hi", registry: registry)
        #expect(
            throws: HandlerError.missingArgument(
                handler: "Session.send", argument: "connection", expectedType: "Connection")
        ) {
            try Session.callSendHandler(send)
        }
        #expect(Recorder.shared.take().isEmpty)
        try callCleanUpHandler(handler, reason: "typed")
        #expect(Recorder.shared.take() == ["cleanUp typed"])
    }
}
