@_spi(HandlerKitGenerated) import HandlerKit
import Testing

/// Former ids and former parameter names: documents written before a rename rebuild.
@Suite("Former names")
struct FormerNameTests {
    /// Version 2 of a module: `Mail.fetch(box:limit:)` was `Inbox.fetch(folder:limit:)`, and before that `fetchMail`.
    private static func version2(recorder: Recorder) -> HandlerTable {
        HandlerTable(
            module: "Mail",
            handlers: [
                HandlerDescriptor(
                    id: "Mail.fetch", formerIDs: ["Inbox.fetch", "fetchMail"],
                    parameters: [
                        .required("box", String.self, formerly: ["folder", "dir"]), .optional("limit", Int.self),
                    ]
                ) { arguments in
                    let box: String = try arguments.required("box")
                    let limit: Int = try arguments.value("limit", default: 10)
                    recorder.record("fetch \(box) \(limit)")
                },
                HandlerDescriptor(
                    id: "Mail.cancel", formerIDs: ["Inbox.cancel"], parameters: [.optional("box", String.self)]
                ) { _ in
                    recorder.record("cancel")
                },
            ])
    }

    private func registry(_ recorder: Recorder) throws -> HandlerRegistry {
        let registry = HandlerRegistry()
        try registry.register(Self.version2(recorder: recorder))
        return registry
    }

    @Test func aDocumentWithAFormerIDRebuildsAndIsWrittenWithTheCurrentID() throws {
        let recorder = Recorder()
        let registry = try registry(recorder)
        let handler = try Handler(
            json: #"{"bound":{"folder":"inbox","limit":3},"id":"Inbox.fetch","version":1}"#, registry: registry)
        #expect(handler.id == "Mail.fetch")
        try handler.callSynchronously()
        #expect(recorder.all == ["fetch inbox 3"])
        #expect(handler.jsonString() == #"{"bound":{"box":"inbox","limit":3},"id":"Mail.fetch","version":1}"#)
    }

    @Test func everyFormerIDAndFormerNameWorksAlsoForTheInvalidationTarget() throws {
        let recorder = Recorder()
        let registry = try registry(recorder)
        let handler = try Handler(
            json: #"{"bound":{"dir":"spam"},"id":"fetchMail","invalidation":"Inbox.cancel","version":1}"#,
            registry: registry)
        #expect(handler.invalidationID == "Mail.cancel")
        try handler.callSynchronously()
        try handler.invalidateSynchronously()
        #expect(recorder.all == ["fetch spam 10", "cancel"])
    }

    @Test func aValueUnderTheCurrentNameWinsAndTheFormerOneIsKept() throws {
        let registry = try registry(Recorder())
        let handler = try Handler(
            json: #"{"bound":{"box":"new","folder":"old"},"id":"Mail.fetch","version":1}"#, registry: registry)
        #expect(handler.boundValues == ["box": .string("new"), "folder": .string("old")])
    }

    @Test func aValueUnderAFormerNameIsCheckedAgainstTheRenamedParameter() throws {
        let registry = try registry(Recorder())
        let error = #expect(throws: HandlerError.self) {
            try Handler(json: #"{"bound":{"folder":7},"id":"Inbox.fetch","version":1}"#, registry: registry)
        }
        guard case .typeMismatch(let handler, let argument, _, _, _)? = error else {
            Issue.record("expected a type mismatch, got \(String(describing: error))")
            return
        }
        #expect(handler == "Mail.fetch")
        #expect(argument == "box")
    }

    /// A nested handler is stored as written (the outer document round-trips exactly); it rebuilds
    /// through the former names when it is read at call time.
    @Test func nestedHandlersRebuildFromFormerNamesToo() throws {
        let recorder = Recorder()
        let registry = HandlerRegistry()
        try registry.register(Self.version2(recorder: recorder))
        try registry.register(
            HandlerTable(
                module: "Outer",
                handlers: [
                    HandlerDescriptor(id: "Outer.then", parameters: [.required("next", Handler.self)]) { arguments in
                        let next: Handler = try arguments.required("next")
                        recorder.record(next.jsonString())
                        try next.callSynchronously()
                    }
                ]))
        let handler = try Handler(
            json:
                #"{"bound":{"next":{"bound":{"folder":"a"},"id":"Inbox.fetch","version":1}},"id":"Outer.then","version":1}"#,
            registry: registry)
        try handler.callSynchronously()
        #expect(recorder.all == [#"{"bound":{"box":"a"},"id":"Mail.fetch","version":1}"#, "fetch a 10"])
    }

    @Test func anUnknownIDStaysATypedError() throws {
        let registry = try registry(Recorder())
        #expect(throws: HandlerError.unknownHandler(id: "Inbox.gone", path: "id")) {
            try Handler(json: #"{"bound":{},"id":"Inbox.gone","version":1}"#, registry: registry)
        }
    }

    @Test func creatingByAFormerIDGivesTheCurrentHandler() throws {
        let registry = try registry(Recorder())
        #expect(registry.descriptor(for: "Inbox.fetch")?.id == "Mail.fetch")
        #expect(try Handler(id: "fetchMail", registry: registry).id == "Mail.fetch")
        #expect(registry.registeredIDs == ["Mail.cancel", "Mail.fetch"])
    }

    @Test func aFormerIDOfAnotherModuleIsADuplicateAndNothingIsRegistered() throws {
        let registry = try registry(Recorder())
        let clashing = HandlerTable(
            module: "Other",
            handlers: [
                HandlerDescriptor(id: "Other.fresh", parameters: []) { _ in },
                HandlerDescriptor(id: "Other.x", formerIDs: ["Inbox.fetch"], parameters: []) { _ in },
            ])
        #expect(throws: HandlerError.duplicateHandler(id: "Inbox.fetch", existingModule: "Mail", newModule: "Other")) {
            try registry.register(clashing)
        }
        let byID = HandlerTable(
            module: "Other", handlers: [HandlerDescriptor(id: "fetchMail", parameters: []) { _ in }])
        #expect(throws: HandlerError.duplicateHandler(id: "fetchMail", existingModule: "Mail", newModule: "Other")) {
            try registry.register(byID)
        }
        #expect(registry.registeredIDs == ["Mail.cancel", "Mail.fetch"])
    }

    @Test func aTableWhoseFormerIDIsItsOwnIDIsRejected() throws {
        let table = HandlerTable(
            module: "A",
            handlers: [
                HandlerDescriptor(id: "A.one", parameters: []) { _ in },
                HandlerDescriptor(id: "A.two", formerIDs: ["A.one"], parameters: []) { _ in },
            ])
        #expect(throws: HandlerError.duplicateHandler(id: "A.one", existingModule: "A", newModule: "A")) {
            try HandlerRegistry().register(table)
        }
    }

    @Test func reRegisteringAModuleDropsItsOldFormerIDs() throws {
        let registry = try registry(Recorder())
        try registry.register(
            HandlerTable(
                module: "Mail",
                handlers: [
                    HandlerDescriptor(id: "Mail.fetch", parameters: []) { _ in }
                ]))
        #expect(registry.descriptor(for: "Inbox.fetch") == nil)
        try registry.register(
            HandlerTable(
                module: "Other",
                handlers: [
                    HandlerDescriptor(id: "Other.x", formerIDs: ["Inbox.fetch"], parameters: []) { _ in }
                ]))
        #expect(registry.descriptor(for: "Inbox.fetch")?.id == "Other.x")
    }

    @Test func parametersDescribeTheirFormerNames() {
        let parameter = HandlerParameter.required("box", String.self, formerly: ["folder"])
        #expect(parameter.formerNames == ["folder"])
        #expect(HandlerParameter.optional("x", Int.self).formerNames == [])
    }
}
