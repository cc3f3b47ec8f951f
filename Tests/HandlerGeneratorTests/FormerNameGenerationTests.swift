import HandlerGenerator
import HandlerScanner
import Testing

/// Former ids and parameter names in `handlergen scan` and the generated file.
@Suite struct FormerNameGenerationTests {
    static let source = #"""
        enum Carbon {
            @handler(formerly: "Carbons.enabled", "Carbons.on", renamed: ["acct": "account"])
            static func enabled(account: String, limit: Int = 3) {}
        }
        """#

    @Test func scanJSONAddsFormerNamesAsNewKeysOnly() {
        let json = ScanReport.json(SourceScanner.scan(source: Self.source, file: "Carbon.swift"))
        #expect(
            json == #"""
                {"handlers":[{"file":"Carbon.swift","line":2,"id":"Carbon.enabled","type":"Carbon","name":"enabled","kind":"static","instance":null,"async":false,"throws":false,"parameters":[{"label":"account","name":"account","type":"String","optional":false,"hasDefault":false,"formerNames":["acct"]},{"label":"limit","name":"limit","type":"Int","optional":false,"hasDefault":true}],"formerIDs":["Carbons.enabled","Carbons.on"]}],"diagnostics":[]}
                """#)
    }

    @Test func scanTextNamesFormerIDs() {
        let text = ScanReport.text(SourceScanner.scan(source: Self.source, file: "Carbon.swift"))
        #expect(
            text.hasPrefix(
                "Carbon.swift:2: Carbon.enabled (formerly Carbons.enabled, Carbons.on)  static  Carbon.enabled(account: String, limit: Int = …)\n"
            ), "\(text)")
    }

    @Test func theDescriptorCarriesFormerIDsAndNames() throws {
        let scan = SourceScanner.scan(source: Self.source, file: "Carbon.swift")
        let text = try HandlerGenerator(moduleName: "App", sourceLocations: false).generate(scan)
        #expect(text.contains(#"parameters.append(.required("account", String.self, formerly: ["acct"]))"#))
        #expect(text.contains(#"parameters.append(.optional("limit", Int.self))"#))
        #expect(
            text.contains(
                #"return HandlerDescriptor(id: "Carbon.enabled", formerIDs: ["Carbons.enabled", "Carbons.on"], parameters: parameters, invoke: {"#
                    + "\n            arguments in"))
    }

    @Test func theGeneratorRefusesAFormerIDThatIsAnotherHandlersID() {
        var first = ModelFixtures.handler(file: "A.swift", line: 3, type: nil, name: "renamed", kind: .global)
        first.formerIDs = ["old"]
        let second = ModelFixtures.handler(file: "B.swift", line: 5, type: nil, name: "old", kind: .global)
        let error = #expect(throws: GeneratorError.self) {
            try HandlerGenerator(moduleName: "App").generate(ScanResult(handlers: [first, second]))
        }
        #expect(
            error?.diagnostics.map(\.compilerFormatted) == [
                "A.swift:3:5: error: former id 'old' is the id of the handler at B.swift:5; a stored document naming it must rebuild to exactly one handler: remove it from one of them",
                "B.swift:5:5: error: handler id 'old' is a former id of the handler at A.swift:3; a stored document naming it must rebuild to exactly one handler: remove it from that handler's 'formerly:' or give this one another id",
            ])
    }
}
