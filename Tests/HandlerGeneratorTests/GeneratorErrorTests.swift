import HandlerGenerator
import HandlerScanner
import Testing

/// The generator refuses bad input with diagnostics at the user's file and line, and writes nothing.
@Suite struct GeneratorErrorTests {
    @Test func duplicateIDsAreRefusedAtEveryDeclaration() throws {
        let a = ModelFixtures.handler(
            file: "A.swift", line: 3, column: 5, id: "same", type: "A", name: "f", kind: .static)
        let b = ModelFixtures.handler(
            file: "B.swift", line: 7, column: 9, id: "same", type: "B", name: "g", kind: .static)
        let error = #expect(throws: GeneratorError.self) {
            try HandlerGenerator(moduleName: "App").generate(ScanResult(handlers: [b, a]))
        }
        #expect(
            error?.description == """
                A.swift:3:5: error: duplicate handler id 'same' (also used at B.swift:7); give one of them another id with @handler(id: "…")
                B.swift:7:9: error: duplicate handler id 'same' (also used at A.swift:3); give one of them another id with @handler(id: "…")
                """)
    }

    /// Each parameter whose default names a private symbol doubles the shim's calls: a fourth is refused
    /// at its line, with the fix.
    @Test func moreThanThreeDefaultsNamingPrivateSymbolsAreRefused() throws {
        let parameters = (1...4).map { index in
            ModelFixtures.hidden(
                ModelFixtures.parameter("p\(index)", "Int", default: "secret\(index)", line: 10 + index))
        }
        let handler = ModelFixtures.handler(
            file: "P.swift", line: 10, type: "P", name: "f", kind: .static, parameters: parameters)
        let error = #expect(throws: GeneratorError.self) {
            try HandlerGenerator(moduleName: "App").generate(ScanResult(handlers: [handler]))
        }
        #expect(error?.diagnostics.count == 1)
        let message = error?.description ?? ""
        #expect(
            message.hasPrefix("P.swift:14:1: error: the default value of 'p4' names a private or fileprivate symbol"),
            "\(message)")
        #expect(message.contains("make the symbol internal"), "\(message)")
        _ = try HandlerGenerator(moduleName: "App").generate(
            ScanResult(handlers: [
                ModelFixtures.handler(
                    file: "P.swift", line: 10, type: "P", name: "f", kind: .static,
                    parameters: Array(parameters.prefix(3)))
            ]))
    }

    @Test func scannerErrorsArePassedOn() throws {
        let scan = SourceScanner.scan(
            source: "enum E {\n    @handler\n    private static func f() {}\n}\n", file: "E.swift")
        #expect(scan.hasErrors)
        let error = #expect(throws: GeneratorError.self) {
            try HandlerGenerator(moduleName: "App").generate(scan)
        }
        let lines = error?.description.split(separator: "\n") ?? []
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("E.swift:") == true)
        #expect(lines.first?.contains(": error: ") == true)
    }

    @Test func warningsDoNotStopGeneration() throws {
        let scan = ScanResult(
            handlers: ModelFixtures.chat,
            diagnostics: [ScanDiagnostic(file: "A.swift", line: 1, column: 1, severity: .warning, message: "w")]
        )
        let generated = try HandlerGenerator(moduleName: "Chat").generate(scan)
        // The whole file, as without the warning: every handler registered, the warning left out.
        #expect(
            generated == (try HandlerGenerator(moduleName: "Chat").generate(ScanResult(handlers: ModelFixtures.chat))))
        #expect(generated.contains("handlers.reserveCapacity(\(ModelFixtures.chat.count))"))
        for handler in ModelFixtures.chat {
            #expect(generated.contains("// MARK: \(handler.id)"), "\(handler.id)")
        }
        #expect(!generated.contains("A.swift"))
    }

    @Test(arguments: ["", "1App", "My-App", "My App", "Ünïcode"])
    func moduleNameMustBeAnIdentifier(name: String) {
        let error = #expect(throws: GeneratorError.self) {
            try HandlerGenerator(moduleName: name).generate(ScanResult())
        }
        #expect(error?.description.contains("is not a Swift identifier") == true)
    }
}

extension GeneratorErrorTests {
    @Test func incompleteModelValuesAreRefused() throws {
        let noInstance = ModelFixtures.handler(
            file: "A.swift", line: 2, column: 5, type: "A", name: "f", kind: .instance)
        let noType = ModelFixtures.handler(file: "B.swift", line: 4, column: 5, type: nil, name: "g", kind: .static)
        let error = #expect(throws: GeneratorError.self) {
            try HandlerGenerator(moduleName: "App").generate(ScanResult(handlers: [noType, noInstance]))
        }
        #expect(error?.diagnostics.map { "\($0.file):\($0.line)" } == ["A.swift:2", "B.swift:4"])
    }
}
