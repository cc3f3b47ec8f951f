@_spi(HandlerKitGenerated) import HandlerKit
import Testing

/// `Handler.callBound(as:_:)`: what a generated typed call (`<Type>.call<Name>Handler(_:…)`) runs.
/// The closures here are written as the generator writes them: a call-time value, else the bound one.
@Suite("Typed calls through callBound")
struct TypedCallTests {
    let recorder = Recorder()
    let registry: HandlerRegistry

    init() throws { registry = try makeRegistry(recorder) }

    /// As generated for `Mail.cancelled(done: Bool, rid: String?)`.
    func callCancelled(_ handler: Handler, done: Bool? = nil, rid: String? = nil) throws {
        let recorder = recorder
        try handler.callBound(as: "Mail.cancelled") { arguments in
            let done: Bool = try done ?? arguments.required("done")
            let rid: String? = try rid ?? arguments.optional("rid")
            recorder.record("cancelled \(done) \(rid ?? "nil")")
        }
    }

    @Test func callTimeValuesOverrideAndNilLeavesTheBoundValue() throws {
        let handler = try Handler(id: "Mail.cancelled", bound: ["done": true, "rid": "bound"], registry: registry)
        try callCancelled(handler)
        try callCancelled(handler, rid: "typed")
        try callCancelled(handler, done: false)
        #expect(recorder.all == ["cancelled true bound", "cancelled true typed", "cancelled false bound"])
    }

    @Test func aMissingMandatoryValueIsStillATypedError() throws {
        let handler = try Handler(id: "Mail.cancelled", registry: registry)
        #expect(throws: HandlerError.missingArgument(handler: "Mail.cancelled", argument: "done", expectedType: "Bool"))
        {
            try callCancelled(handler, rid: "r")
        }
        try callCancelled(handler, done: true)
        #expect(recorder.all == ["cancelled true nil"])
    }

    @Test func aHandlerOfAnotherFunctionIsRefused() throws {
        let handler = try Handler(id: "Counter.add", bound: ["amount": 1], registry: registry)
        let error = #expect(throws: HandlerError.self) { try callCancelled(handler) }
        #expect(error == .wrongHandler(handler: "Counter.add", expected: "Mail.cancelled"))
        #expect(
            error?.description.contains("'Counter.add' was called through the typed call of 'Mail.cancelled'") == true)
        #expect(recorder.all.isEmpty)
    }

    @Test func anInvalidatedHandlerIsRefused() throws {
        let handler = try Handler(id: "Counter.add", bound: ["amount": 1], registry: registry)
        try handler.invalidateSynchronously()
        #expect(throws: HandlerError.invalidated(handler: "Counter.add")) {
            try handler.callBound(as: "Counter.add") { _ in Issue.record("must not run") }
        }
    }

    @Test func typedValuesReachTheFunctionAndBoundValuesFillTheRest() throws {
        let handler = try Handler(id: "Counter.add", bound: ["amount": 5], registry: registry)
        let recorder = recorder
        for amount in [nil, 7] as [Int?] {
            try handler.callBound(as: "Counter.add") { arguments in
                let value: Int = try amount ?? arguments.required("amount")
                recorder.record("add \(value)")
            }
        }
        #expect(recorder.all == ["add 5", "add 7"])
    }

    @Test func asyncFunctionsAreCalledWithAwaitAndNotWithoutIt() async throws {
        let handler = try Handler(id: "Uploads.finished", bound: ["id": 4], registry: registry)
        let recorder = recorder
        try await handler.callBound(as: "Uploads.finished") { arguments in
            let id: Int = try arguments.required("id")
            try await Task.sleep(nanoseconds: 1_000)
            recorder.record("finished \(id)")
        }
        #expect(recorder.all == ["finished 4"])
        #expect(throws: HandlerError.requiresAsync(handler: "Uploads.finished")) {
            try handler.callBound(as: "Uploads.finished") { _ in Issue.record("must not run") }
        }
    }
}
