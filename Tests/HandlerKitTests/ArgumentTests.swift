import Foundation
import HandlerKit
import Testing

@Suite("Arguments: bound values, call-time values, defaults and errors")
struct ArgumentTests {
    let recorder = Recorder()
    let registry: HandlerRegistry
    let account = Account(jid: "romeo@example.org")

    init() throws { registry = try makeRegistry(recorder) }

    @Test func callTimeValuesOverrideBoundValuesOfTheSameName() throws {
        let handler = try Handler(id: "Mail.fetched", bound: ["rid": "bound", "success": false], registry: registry)
        try handler.callSynchronously(["account": account, "rid": "call-time", "limit": 2])
        #expect(recorder.all == ["fetched romeo@example.org false nil 2 call-time"])
    }

    @Test func callTimeNilIsAbsentAndDoesNotOverride() throws {
        let handler = try Handler(
            id: "Mail.fetched", bound: ["rid": "bound", "success": true, "errorReason": "bound reason"],
            registry: registry)
        let noReason: String? = nil
        try handler.callSynchronously(["account": account, "rid": nil, "errorReason": noReason, "limit": nil])
        #expect(recorder.all == ["fetched romeo@example.org true bound reason 10 bound"])
    }

    @Test func optionalAndDefaultedParametersMayBeAbsentInAnyOrder() throws {
        let handler = try Handler(id: "Mail.fetched", registry: registry)
        try handler.callSynchronously(["rid": "r", "success": true, "account": account])
        #expect(recorder.all == ["fetched romeo@example.org true nil 10 r"])
    }

    @Test func missingMandatoryArgumentNamesHandlerArgumentAndType() throws {
        let handler = try Handler(id: "Mail.fetched", bound: ["rid": "r"], registry: registry)
        let error = #expect(throws: HandlerError.self) { try handler.callSynchronously(["account": account]) }
        #expect(error == .missingArgument(handler: "Mail.fetched", argument: "success", expectedType: "Bool"))
        #expect(error?.description == "handler 'Mail.fetched': missing mandatory argument 'success' of type Bool")
        #expect(recorder.all.isEmpty)
    }

    @Test func callTimeValueOfWrongTypeIsATypedError() throws {
        let handler = try Handler(id: "Mail.fetched", bound: ["rid": "r"], registry: registry)
        let error = #expect(throws: HandlerError.self) {
            try handler.callSynchronously(["account": account, "success": 1])
        }
        #expect(
            error
                == .typeMismatch(
                    handler: "Mail.fetched", argument: "success", expectedType: "Bool",
                    found: "a call-time value of type Int", detail: nil))
        let wrongObject = #expect(throws: HandlerError.self) {
            try handler.callSynchronously(["account": "not an account", "success": true])
        }
        #expect(
            wrongObject?.description.contains(
                "argument 'account' expects Account but found a call-time value of type String") == true)
    }

    @Test func extraCallTimeValuesAreIgnored() throws {
        let handler = try Handler(id: "Counter.add", bound: ["amount": 1], registry: registry)
        try handler.callSynchronously(["event": "tick", "sender": account])
        #expect(recorder.all == ["add 1"])
    }

    @Test func bindingChecksNamesTypesAndCodability() throws {
        #expect(
            throws: HandlerError.unknownArgument(handler: "Counter.add", argument: "amout", known: ["amount", "note"])
        ) {
            try Handler(id: "Counter.add", bound: ["amout": 1], registry: registry)
        }
        let wrongType = #expect(throws: HandlerError.self) {
            try Handler(id: "Counter.add", bound: ["amount": "1"], registry: registry)
        }
        #expect(
            wrongType
                == .typeMismatch(
                    handler: "Counter.add", argument: "amount", expectedType: "Int",
                    found: "string \"1\"", detail: nil))
        // Said once: the whole value's mismatch has no further detail to add.
        #expect(wrongType?.description == #"handler 'Counter.add': argument 'amount' expects Int but found string "1""#)
        var bindings = HandlerBindings()
        bindings.bind("account", account)
        #expect(throws: HandlerError.notBindable(handler: "Mail.fetched", argument: "account", type: "Account")) {
            try Handler(id: "Mail.fetched", bound: bindings, registry: registry)
        }
        #expect(throws: HandlerError.unknownHandler(id: "Counter.ad", path: "id")) {
            try Handler(id: "Counter.ad", registry: registry)
        }
    }

    @Test func aHandlerValueNumberMustBeAJSONNumber() throws {
        for text in ["abc", "1.", "01", " 1", "1e", "NaN", ""] {
            let error = #expect(throws: HandlerError.self) {
                try Handler(id: "Counter.add", bound: ["amount": HandlerValue.number(text)], registry: registry)
            }
            guard case .encodingFailed("Counter.add", "amount", let reason)? = error else {
                Issue.record("\(text): \(String(describing: error))")
                continue
            }
            #expect(reason.contains("is not a JSON number"), "\(reason)")
        }
        let nested = HandlerValue.object(["x": .number("1"), "y": .array([.number("2"), .number("two")])])
        #expect(throws: HandlerError.self) {
            try Handler(id: "Geometry.move", bound: ["point": nested], registry: registry)
        }
        let handler = try Handler(id: "Counter.add", bound: ["amount": HandlerValue.number("-12")], registry: registry)
        #expect(handler.jsonString() == #"{"bound":{"amount":-12},"id":"Counter.add","version":1}"#)
    }

    @Test func bindAddsAndReplacesValues() throws {
        let handler = try Handler(id: "Mail.fetched", bound: ["rid": "old"], registry: registry)
        try handler.bind(["rid": "new", "success": true])
        #expect(handler.boundValues == ["rid": .string("new"), "success": .bool(true)])
        try handler.callSynchronously(["account": account])
        #expect(recorder.all == ["fetched romeo@example.org true nil 10 new"])
    }

    @Test func nilBindingsAreNotBound() throws {
        var bindings = HandlerBindings()
        bindings.bind("errorReason", nil as String?)
        bindings.bind("rid", "r" as String?)
        let handler = try Handler(id: "Mail.fetched", bound: bindings, registry: registry)
        #expect(handler.boundValues == ["rid": .string("r")])
    }

    @Test func asyncHandlersNeedAwait() async throws {
        let handler = try Handler(id: "Uploads.finished", bound: ["id": 4], registry: registry)
        #expect(throws: HandlerError.requiresAsync(handler: "Uploads.finished")) { try handler.callSynchronously() }
        try await handler.call()
        // Synchronous handlers can be called from async code too.
        try await Handler(id: "Counter.add", bound: ["amount": 2], registry: registry).call()
        #expect(recorder.all == ["finished 4", "add 2"])
    }

    @Test func errorsThrownByTheHandlerPassThroughUnchanged() throws {
        let handler = try Handler(id: "Failing.run", bound: ["code": 42], registry: registry)
        #expect(throws: HandlerFailure(code: 42)) { try handler.callSynchronously() }
    }

    @Test func descriptionNamesIDBoundNamesAndInvalidation() throws {
        let handler = try Handler(
            id: "Mail.fetched", bound: ["success": true, "rid": "r"], invalidation: "Mail.cancelled",
            registry: registry)
        #expect(handler.description == "Handler(Mail.fetched, bound: [rid, success], invalidation: Mail.cancelled)")
        try handler.invalidateSynchronously(["done": true])
        #expect(
            handler.description
                == "Handler(Mail.fetched, bound: [rid, success], invalidation: Mail.cancelled, invalidated)")
    }
}
