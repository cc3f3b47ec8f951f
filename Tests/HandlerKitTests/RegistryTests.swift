@_spi(HandlerKitGenerated) import HandlerKit
import Testing

@Suite("Registry")
struct RegistryTests {
    private func table(_ module: String, _ ids: [String]) -> HandlerTable {
        HandlerTable(
            module: module,
            handlers: ids.map { id in
                HandlerDescriptor(id: id, parameters: []) { _ in }
            })
    }

    @Test func registersATableInOneCallAndListsIDs() throws {
        let registry = HandlerRegistry()
        try registry.register(table("A", ["A.one", "A.two"]))
        #expect(registry.registeredIDs == ["A.one", "A.two"])
        #expect(registry.descriptor(for: "A.one")?.id == "A.one")
        #expect(registry.descriptor(for: "A.three") == nil)
    }

    @Test func registeringTheSameModuleAgainReplacesIt() throws {
        let registry = HandlerRegistry()
        try registry.register(table("A", ["A.one"]))
        try registry.register(table("A", ["A.one", "A.two"]))
        #expect(registry.registeredIDs == ["A.one", "A.two"])
    }

    @Test func anIDOfAnotherModuleIsADuplicateAndNothingIsRegistered() throws {
        let registry = HandlerRegistry()
        try registry.register(table("A", ["shared.id"]))
        let error = #expect(throws: HandlerError.self) { try registry.register(table("B", ["B.fresh", "shared.id"])) }
        #expect(error == .duplicateHandler(id: "shared.id", existingModule: "A", newModule: "B"))
        #expect(error?.description == "handler id 'shared.id' of module B is already registered by module A")
        #expect(registry.registeredIDs == ["shared.id"])
    }

    @Test func aTableWithTheSameIDTwiceIsRejected() throws {
        #expect(throws: HandlerError.duplicateHandler(id: "A.one", existingModule: "A", newModule: "A")) {
            try HandlerRegistry().register(table("A", ["A.one", "A.one"]))
        }
    }

    @Test func descriptorsDescribeParameters() throws {
        let descriptor = HandlerDescriptor(
            id: "X.y",
            parameters: [.required("a", Int.self), .optional("b", String.self), .required("c", RegistryTests.self)]
        ) { _ in }
        #expect(descriptor.parameters.map(\.name) == ["a", "b", "c"])
        #expect(descriptor.parameters.map(\.isMandatory) == [true, false, true])
        #expect(descriptor.parameters.map(\.isBindable) == [true, true, false])
        #expect(descriptor.parameter(named: "b")?.typeName == "String")
        #expect(!descriptor.isAsync)
    }
}
