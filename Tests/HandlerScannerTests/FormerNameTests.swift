import HandlerScanner
import Testing

/// `@handler(formerly:)` and `@handler(renamed:)`.
@Suite struct FormerNameTests {
    @Test func formerIDsAreReadInOrder() {
        let handler = onlyHandler(
            """
            enum Carbon {
                @handler(formerly: "Carbons.enabled", "Carbons.on")
                static func enabled() {}
            }
            """)
        #expect(handler?.id == "Carbon.enabled")
        #expect(handler?.formerIDs == ["Carbons.enabled", "Carbons.on"])
    }

    @Test func formerIDsFollowIDAndInstance() {
        let handler = onlyHandler(
            """
            extension OMEMO {
                @handler(id: "omemo.fetched", instance: "account.omemo", formerly: "OMEMO.bundleFetched")
                func fetched(account: Account) {}
            }
            """)
        #expect(handler?.id == "omemo.fetched")
        #expect(handler?.formerIDs == ["OMEMO.bundleFetched"])
    }

    @Test func renamedGivesParametersTheirFormerNames() {
        let handler = onlyHandler(
            """
            @handler(renamed: ["acct": "account", "user": "account", "n": "limit"])
            func sync(account: String, limit: Int = 3, other: Bool) {}
            """)
        #expect(handler?.parameters.map(\.formerNames) == [["acct", "user"], ["n"], []])
    }

    @Test func emptyRenamedIsAccepted() {
        let handler = onlyHandler("@handler(renamed: [:]) func f(a: Int) {}")
        #expect(handler?.parameters.first?.formerNames == [])
    }

    @Test func withoutFormerNamesNothingChanges() {
        let handler = onlyHandler("@handler func f(a: Int) {}")
        #expect(handler?.formerIDs == [])
        #expect(handler?.parameters.first?.formerNames == [])
    }

    @Test(arguments: [
        ("@handler(formerly: \"f\") func f() {}", "'f' is the handler's current id", 1, 20),
        ("@handler(formerly: \"a\", \"a\") func f() {}", "former id 'a' is given more than once", 1, 25),
        ("@handler(formerly: name) func f() {}", "'formerly:' must be a plain string literal", 1, 20),
        ("@handler(formerly: \"\") func f() {}", "'formerly:' must not be an empty string", 1, 20),
        ("@handler(renamed: acct) func f(a: Int) {}", "'renamed:' must be a dictionary literal", 1, 19),
        ("@handler(renamed: [\"x\": y]) func f(a: Int) {}", "'renamed:' must be a dictionary literal", 1, 20),
        (
            "@handler(renamed: [\"x\": \"b\"]) func f(a: Int) {}", "maps 'x' to 'b', which is not a parameter of 'f'",
            1, 20
        ),
        ("@handler(renamed: [\"a\": \"x\"]) func f(a: Int) {}", "write the pair the other way round", 1, 20),
        (
            "@handler(renamed: [\"a\": \"b\"]) func f(a: Int, b: Int) {}",
            "'a' is a current parameter of 'f', so it cannot", 1, 20
        ),
        ("@handler(renamed: [\"x\": \"a\", \"x\": \"a\"]) func f(a: Int) {}", "'x' is given more than once", 1, 30),
        ("@handler(renamed: [:], renamed: [:]) func f() {}", "'renamed:' is given more than once", 1, 24),
        ("@handler(formerly: \"a\", id: \"b\", \"c\") func f() {}", "must be labeled", 1, 34),
    ])
    func misuseIsReportedWhereItIs(source: String, message: String, line: Int, column: Int) {
        let diagnostic = onlyDiagnostic(source)
        #expect(diagnostic?.message.contains(message) == true, "\(diagnostic?.message ?? "none")")
        #expect(diagnostic?.line == line)
        #expect(diagnostic?.column == column)
        #expect(scan(source).handlers.isEmpty)
    }

    @Test func aFormerIDThatIsAnotherHandlersIDIsAnErrorAtBoth() {
        let result = scan(
            """
            @handler(formerly: "old")
            func renamed() {}
            @handler
            func old() {}
            """)
        #expect(result.diagnostics.map(\.line) == [1, 3])
        #expect(result.diagnostics.allSatisfy { $0.severity == .error })
        #expect(result.diagnostics[0].message.contains("former id 'old' is the id of the handler at T.swift:3"))
        #expect(result.diagnostics[1].message.contains("handler id 'old' is a former id of the handler at T.swift:1"))
    }

    @Test func aFormerIDSharedByTwoHandlersIsAnErrorAtBoth() {
        let result = scan(
            """
            @handler(formerly: "old") func a() {}
            @handler(formerly: "x", "old") func b() {}
            """)
        #expect(result.diagnostics.map(\.line) == [1, 2])
        #expect(
            result.diagnostics.allSatisfy {
                $0.message.contains("former id 'old' is also a former id of the handler at")
            })
    }

    @Test func exclusiveBranchesMayShareAFormerID() {
        let result = scan(
            """
            #if os(iOS)
            @handler(formerly: "old") func a() {}
            #else
            @handler(formerly: "old") func b() {}
            #endif
            """)
        #expect(result.diagnostics == [])
        #expect(result.handlers.count == 2)
    }

    @Test func theCompilerPluginChecksOneDeclaration() {
        let result = SourceScanner.scanDeclaration(
            "@handler(formerly: \"T.f\")\nstatic func f() {}", file: "U.swift", line: 7, column: 5,
            context: .type(path: "T", isProtocol: false))
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics.first?.line == 7)
        #expect(result.diagnostics.first?.column == 24)
        #expect(result.diagnostics.first?.message.contains("current id") == true)
    }
}
