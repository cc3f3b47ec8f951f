import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
import Testing

@Suite("Handler JSON documents")
struct JSONDocumentTests {
    let recorder = Recorder()
    let registry: HandlerRegistry

    init() throws { registry = try makeRegistry(recorder) }

    @Test func writesSortedVersionedDeterministicJSON() throws {
        let handler = try Handler(
            id: "Mail.fetched", bound: ["rid": "r-1", "success": true, "limit": 3],
            invalidation: "Mail.cancelled", registry: registry)
        let expected =
            #"{"bound":{"limit":3,"rid":"r-1","success":true},"id":"Mail.fetched","invalidation":"Mail.cancelled","version":1}"#
        #expect(handler.jsonString() == expected)
        // The same handler built in another order writes the same bytes.
        let again = try Handler(
            id: "Mail.fetched", bound: ["limit": 3, "success": true, "rid": "r-1"],
            invalidation: "Mail.cancelled", registry: registry)
        #expect(again.jsonData() == handler.jsonData())
    }

    @Test func prettyPrintedIsReadableAndReadsBack() throws {
        let handler = try Handler(
            id: "Counter.add", bound: ["amount": 2, "note": "a \"quoted\"\nline"], registry: registry)
        let pretty = handler.jsonString(prettyPrinted: true)
        #expect(
            pretty == """
                {
                  "bound": {
                    "amount": 2,
                    "note": "a \\"quoted\\"\\nline"
                  },
                  "id": "Counter.add",
                  "version": 1
                }
                """)
        #expect(try Handler(json: pretty, registry: registry).jsonString() == handler.jsonString())
    }

    @Test func roundTripsExactlyAndCallsTheRebuiltHandler() throws {
        let handler = try Handler(
            id: "Mail.fetched", bound: ["rid": "r-9", "success": false, "errorReason": "timeout"],
            registry: registry)
        let rebuilt = try Handler(json: handler.jsonData(), registry: registry)
        #expect(rebuilt.jsonData() == handler.jsonData())
        #expect(rebuilt.id == "Mail.fetched")
        try rebuilt.callSynchronously(["account": Account(jid: "a@b")])
        #expect(recorder.all == ["fetched a@b false timeout 10 r-9"])
    }

    @Test func keepsBoundValuesOfRemovedParametersAndIgnoresThem() throws {
        let json = #"{"bound":{"amount":1,"retired":[1,2]},"id":"Counter.add","version":1}"#
        let handler = try Handler(json: json, registry: registry)
        #expect(handler.jsonString() == json)
        try handler.callSynchronously()
        #expect(recorder.all == ["add 1"])
    }

    @Test func everyTruncationIsATypedErrorWithAPosition() throws {
        let json = Array(#"{"bound":{"note":"é\u00e9","amount":-12.5e3},"id":"Counter.add","version":1}"#.utf8)
        for length in 0..<json.count {
            let error = #expect(throws: HandlerError.self) { try Handler(json: json[0..<length], registry: registry) }
            guard case .malformedJSON(_, let line, let column, let offset)? = error else {
                Issue.record("prefix of \(length) bytes gave \(String(describing: error))")
                continue
            }
            #expect(line == 1 && column >= 1 && offset <= length)
        }
    }

    @Test(arguments: [
        (#"{"id":"Counter.add","version":1,}"#, "expected a member name"),
        (#"{"id":"Counter.add" "version":1}"#, "expected ',' or '}'"),
        (#"{"id":"Counter.add","version":01}"#, "leading zeros"),
        (#"{"id":"Counter.add","version":1} x"#, "after the document"),
        (#"{"id":"Counter.add","id":"Counter.add","version":1}"#, "duplicate member name \"id\""),
        (#"{"id":"Counter\u0007add","version":1,"bound":{"note":"\ud800"}}"#, "lone high surrogate"),
        (#"{"id":"Counter.add","version":1,"bound":{"note":"\x"}}"#, "invalid escape"),
        ("{\"id\":\"Counter.add\",\"version\":1,\"bound\":{\"note\":\"\u{01}\"}}", "control character"),
        (#"{"id":"Counter.add","version":tru}"#, "expected 'true'"),
        (#"{"id":"Counter.add","version":-}"#, "needs digits"),
    ])
    func malformedJSONSaysWhatAndWhere(json: String, message: String) throws {
        let error = #expect(throws: HandlerError.self) { try Handler(json: json, registry: registry) }
        guard case .malformedJSON(let reason, let line, let column, _)? = error else {
            Issue.record("expected malformedJSON, got \(String(describing: error))")
            return
        }
        #expect(reason.contains(message), "\(reason)")
        #expect(line == 1 && column > 1)
        #expect(error?.description.contains("line 1, column \(column)") == true)
    }

    @Test func invalidUTF8IsRejected() throws {
        var bytes = Array(#"{"bound":{"note":"ab"},"id":"Counter.add","version":1}"#.utf8)
        bytes[19] = 0xFF
        let error = #expect(throws: HandlerError.self) { try Handler(json: bytes, registry: registry) }
        guard case .malformedJSON(let reason, _, let column, _)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(reason.contains("UTF-8") && column == 20)
    }

    @Test func lineAndColumnCountLines() throws {
        let json = "{\n  \"id\": \"Counter.add\",\n  \"version\": 1,\n  \"bound\": {\"amount\": [1,}\n}"
        let error = #expect(throws: HandlerError.self) { try Handler(json: json, registry: registry) }
        guard case .malformedJSON(_, let line, let column, _)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(line == 4 && column == 26)
    }

    @Test(arguments: [
        (#"[1,2]"#, "$", "expected an object"),
        (#"{"version":1}"#, "id", "missing"),
        (#"{"id":"Counter.add"}"#, "version", "missing"),
        (#"{"id":7,"version":1}"#, "id", "expected a string, found number 7"),
        (#"{"id":"Counter.add","version":"1"}"#, "version", "expected a number"),
        (#"{"id":"Counter.add","version":1,"bound":[]}"#, "bound", "expected an object"),
        (#"{"id":"Counter.add","version":1,"selector":"exit"}"#, "selector", "unknown member"),
        (#"{"id":"Counter.add","version":1,"invalidation":false}"#, "invalidation", "expected a string"),
    ])
    func wrongShapeNamesThePath(json: String, path: String, reason: String) throws {
        let error = #expect(throws: HandlerError.self) { try Handler(json: json, registry: registry) }
        guard case .invalidDocument(let foundPath, let foundReason)? = error else {
            Issue.record("expected invalidDocument, got \(String(describing: error))")
            return
        }
        #expect(foundPath == path)
        #expect(foundReason.contains(reason), "\(foundReason)")
    }

    @Test func unsupportedVersion() throws {
        let error = #expect(throws: HandlerError.self) {
            try Handler(json: #"{"id":"Counter.add","version":2}"#, registry: registry)
        }
        #expect(error == .unsupportedVersion(found: "2", supported: 1))
        #expect(error?.description == "handler JSON has version 2; this runtime reads version 1")
    }

    @Test func unknownIDsAreRejected() throws {
        let error = #expect(throws: HandlerError.self) {
            try Handler(json: #"{"id":"Foundation.exit","version":1}"#, registry: registry)
        }
        #expect(error == .unknownHandler(id: "Foundation.exit", path: "id"))
        let invalidation = #expect(throws: HandlerError.self) {
            try Handler(json: #"{"id":"Counter.add","invalidation":"Nope.none","version":1}"#, registry: registry)
        }
        #expect(invalidation == .unknownHandler(id: "Nope.none", path: "invalidation"))
        // A registered id in another (empty) registry is not reachable either.
        #expect(throws: HandlerError.noHandlersRegistered(id: "Counter.add", path: "id")) {
            try Handler(json: #"{"id":"Counter.add","version":1}"#, registry: HandlerRegistry())
        }
    }

    @Test(arguments: [
        (#""amount":"3""#, "amount", "Int", "string \"3\""),
        (#""amount":true"#, "amount", "Int", "bool true"),
        (#""amount":1.5"#, "amount", "Int", "number 1.5"),
        (#""amount":1e2"#, "amount", "Int", "number 1e2"),
        (#""amount":9223372036854775808"#, "amount", "Int", "number 9223372036854775808"),
        (#""amount":1,"note":false"#, "note", "String", "bool false"),
    ])
    func boundValueOfWrongTypeNamesHandlerArgumentAndTypes(
        member: String, argument: String, expected: String, found: String
    ) throws {
        let json = #"{"bound":{"# + member + #"},"id":"Counter.add","version":1}"#
        let error = #expect(throws: HandlerError.self) { try Handler(json: json, registry: registry) }
        guard case .typeMismatch(let handler, let foundArgument, let expectedType, let foundValue, _)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(
            handler == "Counter.add" && foundArgument == argument && expectedType == expected && foundValue == found)
    }

    @Test func boolAndNumbersAreNeverConfused() throws {
        #expect(throws: HandlerError.self) {
            try Handler(json: #"{"bound":{"success":1,"rid":"r"},"id":"Mail.fetched","version":1}"#, registry: registry)
        }
        #expect(throws: HandlerError.self) {
            try Handler(json: #"{"bound":{"success":0,"rid":"r"},"id":"Mail.fetched","version":1}"#, registry: registry)
        }
        // A whole number is a fine Double.
        let moved = try Handler(
            json: #"{"bound":{"by":2,"point":{"x":1,"y":1.5}},"id":"Geometry.move","version":1}"#, registry: registry)
        try moved.callSynchronously()
        #expect(recorder.all == ["move 3.0 3.5"])
    }

    @Test func nestedTypeMismatchSaysWhere() throws {
        let json = #"{"bound":{"point":{"x":1,"y":"up"}},"id":"Geometry.move","version":1}"#
        let error = #expect(throws: HandlerError.self) { try Handler(json: json, registry: registry) }
        guard case .typeMismatch(_, "point", "Point", _, let detail?)? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(detail.contains("at 'y'"), "\(detail)")
    }

    @Test func nestingDepthOf10000IsRejectedWithoutRecursingThatDeep() throws {
        let deep =
            #"{"bound":{"note":"# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
            + #"},"id":"Counter.add","version":1}"#
        let error = #expect(throws: HandlerError.self) { try Handler(json: deep, registry: registry) }
        // `{"bound":{"note":` is 17 bytes; 62 brackets more reach level 64, the next one (column 80) is too deep.
        #expect(error == .nestingTooDeep(limit: 64, line: 1, column: 80))
        let objects = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        #expect(throws: HandlerError.nestingTooDeep(limit: 5, line: 1, column: 26)) {
            try Handler(json: objects, registry: registry, limits: DecodingLimits(maximumDepth: 5))
        }
    }

    @Test func documentOf100MBIsRejectedBeforeParsing() throws {
        let huge = [UInt8](repeating: UInt8(ascii: " "), count: 100 * 1024 * 1024)
        let error = #expect(throws: HandlerError.self) { try Handler(json: huge, registry: registry) }
        #expect(error == .documentTooLarge(size: 100 * 1024 * 1024, limit: 4 * 1024 * 1024))
        // With the limit raised it is parsed, and still fails cleanly: it holds no document.
        let raised = DecodingLimits(maximumDocumentSize: 200 * 1024 * 1024)
        let parsed = #expect(throws: HandlerError.self) { try Handler(json: huge, registry: registry, limits: raised) }
        guard case .malformedJSON(let reason, _, _, _)? = parsed else {
            Issue.record("got \(String(describing: parsed))")
            return
        }
        #expect(reason.contains("unexpected end of document"))
    }
}

/// Documents are read from their bytes: ids resolve and bound names match parameters without
/// strings being created for them. Escaped forms must mean exactly what their plain forms mean.
@Suite("Handler documents read from bytes")
struct DocumentBytesTests {
    let recorder = Recorder()
    let registry: HandlerRegistry

    init() throws { registry = try makeRegistry(recorder) }

    @Test func escapedIDsAndNamesMeanWhatTheirPlainFormsMean() throws {
        let json = #"{"bound":{"am\u006funt":4,"note":"x"},"id":"Counter\u002eadd","version":1}"#
        let handler = try Handler(json: json, registry: registry)
        #expect(handler.id == "Counter.add")
        #expect(handler.jsonString() == #"{"bound":{"amount":4,"note":"x"},"id":"Counter.add","version":1}"#)
        try handler.callSynchronously()
        #expect(recorder.all == ["add 4"])
    }

    @Test func aNameGivenPlainAndEscapedIsADuplicate() throws {
        let json = #"{"bound":{"amount":1,"\u0061mount":2},"id":"Counter.add","version":1}"#
        let error = #expect(throws: HandlerError.self) { try Handler(json: json, registry: registry) }
        guard case .malformedJSON(let reason, let line, let column, _)? = error else {
            Issue.record("expected malformedJSON, got \(String(describing: error))")
            return
        }
        #expect(reason == #"duplicate member name "amount""#)
        #expect(line == 1 && column == 22)
    }

    @Test func namesThatNoParameterHasAreKept() throws {
        let json = #"{"bound":{"amount":1,"z\u00e9ro":0,"zero":0},"id":"Counter.add","version":1}"#
        let handler = try Handler(json: json, registry: registry)
        #expect(handler.jsonString() == #"{"bound":{"amount":1,"zero":0,"zéro":0},"id":"Counter.add","version":1}"#)
    }

    @Test func handlersOfAModuleRegisteredLaterAreFound() throws {
        let recorder = recorder
        try registry.register(
            HandlerTable(
                module: "Late",
                handlers: [
                    HandlerDescriptor(id: "Late.handler", parameters: [.required("value", Int.self)]) { arguments in
                        let value: Int = try arguments.required("value")
                        recorder.record("late \(value)")
                    }
                ]))
        try Handler(json: #"{"bound":{"value":7},"id":"Late.handler","version":1}"#, registry: registry)
            .callSynchronously()
        try Handler(json: #"{"bound":{"amount":8},"id":"Counter.add","version":1}"#, registry: registry)
            .callSynchronously()
        #expect(recorder.all == ["late 7", "add 8"])
    }

    @Test(arguments: ["9223372036854775807", "-9223372036854775808", "-0", "0", "10"])
    func integersReadFromBytesAreExact(text: String) throws {
        let json = #"{"bound":{"amount":"# + text + #"},"id":"Counter.add","version":1}"#
        let handler = try Handler(json: Array(json.utf8), registry: registry)
        try handler.callSynchronously()
        #expect(recorder.all == ["add \(Int(text) ?? -1)"])
        #expect(handler.jsonString() == json)
    }

    @Test(arguments: ["9223372036854775808", "-9223372036854775809", "1.0", "1e2"])
    func numbersBeyondIntAreNotInts(text: String) throws {
        let json = #"{"bound":{"amount":"# + text + #"},"id":"Counter.add","version":1}"#
        let error = #expect(throws: HandlerError.self) { try Handler(json: Array(json.utf8), registry: registry) }
        guard case .typeMismatch(let handler, let argument, let expectedType, let found, _)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(handler == "Counter.add" && argument == "amount" && expectedType == "Int" && found == "number \(text)")
    }
}
