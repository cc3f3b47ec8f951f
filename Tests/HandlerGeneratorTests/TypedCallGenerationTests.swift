import HandlerScanner
import Testing

@testable import HandlerGenerator

/// The typed calls (`call<Name>Handler`): their names, the names inside them, their layout.
@Suite struct TypedCallGenerationTests {
    static func handler(
        _ name: String, type: String? = "Names", id: String? = nil, kind: HandlerDeclaration.Kind = .static,
        instance: String? = nil, parameters: [HandlerDeclaration.Parameter] = []
    ) -> HandlerDeclaration {
        ModelFixtures.handler(
            file: "Names.swift", line: 10, id: id, type: type, name: name, kind: type == nil ? .global : kind,
            instance: instance, parameters: parameters)
    }

    /// The typed call names of `handlers`, in the generator's (id) order.
    static func callNames(_ handlers: [HandlerDeclaration]) -> [String: String] {
        let sorted = handlers.sorted(by: HandlerGenerator.order)
        return Dictionary(uniqueKeysWithValues: zip(sorted.map(\.id), HandlerGenerator.callNames(sorted)))
    }

    static func generate(_ handlers: [HandlerDeclaration]) throws -> String {
        try HandlerGenerator(moduleName: "App", sourceLocations: false).generate(ScanResult(handlers: handlers))
    }

    @Test func theBaseNameGetsItsFirstLetterUppercased() {
        let names = Self.callNames([
            Self.handler("enabled"), Self.handler("x"), Self.handler("_hidden"), Self.handler("éclair"),
        ])
        #expect(
            names == [
                "Names.enabled": "callEnabledHandler", "Names.x": "callXHandler",
                "Names._hidden": "call_hiddenHandler", "Names.éclair": "callÉclairHandler",
            ])
    }

    /// The scanner reports `` `default` `` as `default`: the call is named without backticks and calls
    /// the function with them.
    @Test func aKeywordNameIsUsedWithoutBackticks() throws {
        let text = try Self.generate([
            Self.handler("default", parameters: [ModelFixtures.parameter("value", "Int", line: 11)])
        ])
        #expect(
            text.contains(
                "nonisolated static func callDefaultHandler(_ handler: Handler,\n        value: Int? = nil\n    ) throws {"
            ))
        #expect(text.contains("let value: Int = try value ?? arguments.required(\"value\")"))
        #expect(text.contains("Names.`default`(value: value)"))
    }

    /// Overloads (their own ids) get `_2`, `_3`… in id order, like their descriptors.
    @Test func overloadsGetTheDescriptorsSuffix() throws {
        let handlers = [
            Self.handler("send", id: "Names.send.b", parameters: [ModelFixtures.parameter("b", "Int", line: 11)]),
            Self.handler("send", id: "Names.send.a", parameters: [ModelFixtures.parameter("a", "Int", line: 11)]),
        ]
        #expect(Self.callNames(handlers) == ["Names.send.a": "callSendHandler", "Names.send.b": "callSendHandler_2"])
        let text = try Self.generate(handlers)
        #expect(text.contains("func sendHandlerDescriptor_2()"))
        #expect(text.contains("func callSendHandler_2(_ handler: Handler,\n        b: Int? = nil\n    ) throws {"))
    }

    /// `send` and `Send` would both be `callSendHandler`; a handler `callSend` has the reference
    /// `callSendHandler`, which a typed call must not reuse.
    @Test func namesThatMeetAfterUppercasingOrMeetAReferenceGetASuffix() {
        #expect(
            Self.callNames([Self.handler("send"), Self.handler("Send")]) == [
                "Names.Send": "callSendHandler", "Names.send": "callSendHandler_2",
            ])
        #expect(
            Self.callNames([Self.handler("send"), Self.handler("callSend")]) == [
                "Names.callSend": "callCallSendHandler", "Names.send": "callSendHandler_2",
            ])
        #expect(
            Self.callNames([Self.handler("send"), Self.handler("Send"), Self.handler("callSend")]) == [
                "Names.Send": "callSendHandler_2", "Names.callSend": "callCallSendHandler",
                "Names.send": "callSendHandler_3",
            ])
    }

    @Test func eachScopeHasItsOwnNames() {
        let names = Self.callNames([
            Self.handler("send"), Self.handler("send", type: "Other"), Self.handler("send", type: nil),
            Self.handler("callSend", type: "Other"),
        ])
        #expect(
            names == [
                "Names.send": "callSendHandler", "Other.send": "callSendHandler_2", "send": "callSendHandler",
                "Other.callSend": "callCallSendHandler",
            ])
    }

    @Test func aParameterNamedHandlerKeepsItsNameAndTheHandlerTakesAnother() throws {
        let text = try Self.generate([
            Self.handler("relay", parameters: [ModelFixtures.parameter("handler", "Handler", line: 11)])
        ])
        #expect(
            text.contains("func callRelayHandler(_ handler_: Handler,\n        handler: Handler? = nil\n    ) throws {")
        )
        #expect(text.contains("/// Calls `handler_` as `Names.relay`"))
        #expect(text.contains("try handler_.callBound(as: \"Names.relay\") { arguments in"))
        #expect(text.contains("let handler: Handler = try handler ?? arguments.required(\"handler\")"))
        #expect(text.contains("Names.relay(handler: handler)"))
    }

    /// A default value or an `instance:` expression that mentions `handler` (a global, say) keeps
    /// meaning it inside the typed call.
    @Test func theHandlerParameterAvoidsNamesInDefaultsAndTheInstanceExpression() throws {
        let text = try Self.generate([
            Self.handler(
                "first", parameters: [ModelFixtures.parameter("count", "Int", default: "handler.count", line: 11)]),
            Self.handler(
                "second", kind: .instance, instance: "handler.owner",
                parameters: [ModelFixtures.parameter("value", "Int", line: 11)]),
        ])
        #expect(text.contains("func callFirstHandler(_ handler_: Handler,\n        count: Int? = nil\n    ) throws {"))
        #expect(text.contains("func callSecondHandler(_ handler_: Handler,\n        value: Int? = nil\n    ) throws {"))
        #expect(text.contains("    handler.owner.second(value: value)"))
    }

    /// `limit: Int = limit` (a static member): inside the typed call the default must still mean the
    /// member, so the parameter gets another internal name; its label, the argument key, stays.
    /// A member access (`Names.page`) names no parameter.
    @Test func aParameterWhoseNameADefaultUsesGetsAnotherInternalName() throws {
        let text = try Self.generate([
            Self.handler(
                "fetch",
                parameters: [
                    ModelFixtures.parameter("limit", "Int", default: "limit", line: 11),
                    ModelFixtures.parameter("page", "Int", default: "Names.page", line: 11),
                ])
        ])
        #expect(
            text.contains(
                "func callFetchHandler(_ handler: Handler,\n        limit limit_: Int? = nil, page: Int? = nil\n    ) throws {"
            ))
        // The local takes the parameter's name; in its own initializer `limit` is still the member.
        #expect(text.contains("let limit: Int = try limit_ ?? arguments.value(\"limit\", default: limit)"))
        #expect(text.contains("let page: Int = try page ?? arguments.value(\"page\", default: Names.page)"))
        #expect(text.contains("Names.fetch(limit: limit, page: page)"))
        // The reference binds by the parameter's name, as before.
        #expect(
            text.contains(
                "func fetchHandler(\n        limit: Int? = nil, page: Int? = nil,\n        invalidation: HandlerID? = nil"
            ))
    }

    /// An instance handler without parameters binds no locals: no line of mere indentation and no
    /// directive for them, in the typed call as in the descriptor's shim.
    @Test func anInstanceHandlerWithoutParametersHasNoLocalsLine() throws {
        let tick = Self.handler("tick", kind: .instance, instance: "Box.shared")
        let text = try HandlerGenerator(moduleName: "App").generate(ScanResult(handlers: [tick]))
        #expect(!text.split(separator: "\n").contains { !$0.isEmpty && $0.allSatisfy(\.isWhitespace) }, "\(text)")
        for opening in ["invoke: { _ in", "callBound(as: \"Names.tick\") { _ in"] {
            #expect(
                text.contains(
                    opening + """

                                    #sourceLocation(file: "Names.swift", line: 10)
                                    Box.shared.tick()
                        """), "\(text)")
        }
    }
}
