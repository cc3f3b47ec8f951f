import HandlerGenerator
import HandlerScanner
import Testing

/// `handlergen scan --format json` is a public interface: its exact text is checked.
@Suite struct ScanReportTests {
    @Test func jsonShapeIsExact() {
        let source = #"""
            import HandlerKit

            extension OMEMO {
                @handler(instance: "account.omemo")
                func bundleFetched(account: Account, jid: String,
                                   errorReason: String? = nil, for rid: [String : Int]) async throws {}
            }

            @handler(id: "cleanup.v1")
            func cleanUp(_ reason: String = "a\"b") {}

            @handler
            private func hidden() {}
            """#
        let result = SourceScanner.scan(source: source, file: "Chat.swift")
        let json = ScanReport.json(result)
        let expectedHandlers = #"""
            {"handlers":[{"file":"Chat.swift","line":4,"id":"OMEMO.bundleFetched","type":"OMEMO","name":"bundleFetched","kind":"instance","instance":"account.omemo","async":true,"throws":true,"parameters":[{"label":"account","name":"account","type":"Account","optional":false,"hasDefault":false},{"label":"jid","name":"jid","type":"String","optional":false,"hasDefault":false},{"label":"errorReason","name":"errorReason","type":"String?","optional":true,"hasDefault":true},{"label":"for","name":"rid","type":"[String:Int]","optional":false,"hasDefault":false}]},{"file":"Chat.swift","line":9,"id":"cleanup.v1","type":null,"name":"cleanUp","kind":"global","instance":null,"async":false,"throws":false,"parameters":[{"label":"_","name":"reason","type":"String","optional":false,"hasDefault":true}]}],"diagnostics":[{"file":"Chat.swift","line":13,"severity":"error","message":
            """#
        #expect(json.hasPrefix(expectedHandlers), "\(json)")
        #expect(json.hasSuffix("\"}]}"))
        #expect(result.diagnostics.count == 1)
    }

    @Test func emptyScan() {
        #expect(ScanReport.json(ScanResult()) == #"{"handlers":[],"diagnostics":[]}"#)
    }

    @Test func stringsAreEscapedAndOrderIsByFileThenLine() {
        let late = ModelFixtures.handler(file: "b.swift", line: 2, type: nil, name: "late", kind: .global)
        let early = ModelFixtures.handler(
            file: "a.swift", line: 9, id: "q\"\\\n\u{1}é", type: nil, name: "early", kind: .global)
        let result = ScanResult(
            handlers: [late, early],
            diagnostics: [
                ScanDiagnostic(file: "b.swift", line: 1, column: 1, severity: .warning, message: "w"),
                ScanDiagnostic(file: "a.swift", line: 5, column: 3, severity: .note, message: "n\t"),
            ]
        )
        let json = ScanReport.json(result)
        #expect(
            json
                == #"{"handlers":[{"file":"a.swift","line":9,"id":"q\"\\\n\u0001é","type":null,"name":"early","kind":"global","instance":null,"async":false,"throws":false,"parameters":[]},{"file":"b.swift","line":2,"id":"late","type":null,"name":"late","kind":"global","instance":null,"async":false,"throws":false,"parameters":[]}],"diagnostics":[{"file":"a.swift","line":5,"severity":"note","message":"n\t"},{"file":"b.swift","line":1,"severity":"warning","message":"w"}]}"#
        )
    }

    @Test func textListsHandlersAndDiagnostics() {
        let result = ScanResult(
            handlers: ModelFixtures.chat.filter { $0.id == "cleanup.v1" },
            diagnostics: [ScanDiagnostic(file: "x.swift", line: 3, column: 7, severity: .error, message: "bad")]
        )
        #expect(
            ScanReport.text(result) == """
                Sources/Chat/Cleanup.swift:3: cleanup.v1  global  cleanUp(reason: String)
                x.swift:3:7: error: bad
                1 handler, 1 error

                """)
    }
}
