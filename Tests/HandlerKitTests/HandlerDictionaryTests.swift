import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
import Testing

@Suite("HandlerDictionary: many handlers in one file, decoded entry by entry")
struct HandlerDictionaryTests {
    let recorder = Recorder()
    let registry: HandlerRegistry

    init() throws { registry = try makeRegistry(recorder) }

    /// Three entries: one that decodes, one whose handler is not registered, one whose bound value
    /// no longer fits its parameter. Compact and sorted, as `jsonString()` writes it.
    static let mixed =
        #"{"add":{"bound":{"amount":2},"id":"Counter.add","version":1},"#
        + #""retyped":{"bound":{"amount":"two"},"id":"Counter.add","version":1},"#
        + #""stale":{"bound":{"reason":"x"},"id":"Gone.away","version":1}}"#

    @Test func goodEntriesSurviveBadOnes() throws {
        let stored = try HandlerDictionary(json: Self.mixed, registry: registry)
        #expect(stored.handlers.keys.sorted() == ["add"])
        #expect(stored.failures.map(\.key) == ["retyped", "stale"])
        try stored.handlers["add"]?.callSynchronously()
        #expect(recorder.all == ["add 2"])
    }

    @Test func eachFailureNamesTheKeyAndTheErrorOfTheEntryReadAlone() throws {
        let stored = try HandlerDictionary(json: Data(Self.mixed.utf8), registry: registry)
        let retyped = #"{"bound":{"amount":"two"},"id":"Counter.add","version":1}"#
        let alone = #expect(throws: HandlerError.self) { try Handler(json: retyped, registry: registry) }
        #expect(stored.failures.first?.error == alone)
        #expect(stored.failures.first?.description == "handler entry 'retyped': \(try #require(alone))")

        let stale = try #require(stored.failures.last)
        #expect(stale.error == .unknownHandler(id: "Gone.away", path: "id"))
        #expect(
            stale.description.hasPrefix(
                "handler entry 'stale': unknown handler id 'Gone.away' at 'id': no @handler function with this id is registered"
            ))
        #expect(
            stale.json
                == .object([
                    "bound": .object(["reason": .string("x")]), "id": .string("Gone.away"), "version": .number("1"),
                ]))
    }

    @Test func anEntryThatIsNotADocumentIsAFailureOfThatEntry() throws {
        let stored = try HandlerDictionary(json: #"{"a":3,"b":{"id":"Counter.add","version":2}}"#, registry: registry)
        #expect(stored.handlers.isEmpty)
        #expect(
            stored.failures.map(\.error) == [
                .invalidDocument(path: "$", reason: "expected an object, found number 3"),
                .unsupportedVersion(found: "2", supported: 1),
            ])
    }

    @Test func malformedOrMisshapenFilesAreTypedErrors() throws {
        let truncated = String(Self.mixed.dropLast(3))
        let malformed = #expect(throws: HandlerError.self) {
            try HandlerDictionary(json: truncated, registry: registry)
        }
        guard case .malformedJSON(_, let line, let column, let offset)? = malformed else {
            Issue.record("expected malformedJSON, got \(String(describing: malformed))")
            return
        }
        #expect(line == 1 && column == truncated.utf8.count + 1 && offset == truncated.utf8.count)

        #expect(
            throws: HandlerError.invalidDocument(
                path: "$", reason: "expected an object of handler documents by key, found array of 1 elements")
        ) {
            try HandlerDictionary(json: #"[{"id":"Counter.add","version":1}]"#, registry: registry)
        }
        // A duplicate key is malformed JSON: which entry would win is not knowable.
        let duplicate = #expect(throws: HandlerError.self) {
            try HandlerDictionary(json: #"{"a":{},"a":{}}"#, registry: registry)
        }
        #expect(duplicate?.description.contains("duplicate") == true)
    }

    @Test func limitsApplyToEachEntryAndTheFileNestsOneLevelDeeper() throws {
        let small = #"{"bound":{"amount":1},"id":"Counter.add","version":1}"#
        let large =
            #"{"bound":{"amount":1,"note":"\#(String(repeating: "n", count: 100))"},"id":"Counter.add","version":1}"#
        let limits = DecodingLimits(maximumDocumentSize: small.utf8.count, maximumDepth: 3)
        let stored = try HandlerDictionary(
            json: #"{"large":\#(large),"small":\#(small)}"#, registry: registry, limits: limits)
        #expect(stored.handlers.keys.sorted() == ["small"])
        #expect(stored.failures.map(\.error) == [.documentTooLarge(size: large.utf8.count, limit: small.utf8.count)])

        // Depth 3 per entry (its object, `bound`, an array), 4 for the file: an entry within it is read
        // alone (here a type mismatch); one nesting deeper makes the file unreadable, with its position.
        let deep = #"{"deep":{"bound":{"amount":[1]},"id":"Counter.add","version":1}}"#
        let depthOnly = DecodingLimits(maximumDepth: 3)
        let deepEntry = try HandlerDictionary(json: deep, registry: registry, limits: depthOnly)
        guard case .typeMismatch(handler: "Counter.add", argument: "amount", _, _, _)? = deepEntry.failures.first?.error
        else {
            Issue.record("expected a type mismatch, got \(deepEntry.failures)")
            return
        }
        let deeper = #"{"deep":{"bound":{"amount":[[1]]},"id":"Counter.add","version":1}}"#
        #expect(throws: HandlerError.nestingTooDeep(limit: 4, line: 1, column: 29)) {
            try HandlerDictionary(json: deeper, registry: registry, limits: depthOnly)
        }
    }

    @Test func savingAgainKeepsFailedEntriesByteForByte() throws {
        let stored = try HandlerDictionary(json: Self.mixed, registry: registry)
        #expect(stored.jsonString() == Self.mixed)
        let pretty = stored.jsonString(prettyPrinted: true)
        #expect(try HandlerDictionary(json: pretty, registry: registry).jsonData() == Data(Self.mixed.utf8))

        // A later build that registers the missing handler reads the preserved entry.
        let later = try makeRegistry(recorder)
        try later.register(
            HandlerTable(
                module: "Later",
                handlers: [
                    HandlerDescriptor(id: "Gone.away", parameters: [.required("reason", String.self)]) { arguments in
                        let reason: String = try arguments.required("reason")
                        recorder.record("gone \(reason)")
                    }
                ]))
        let reread = try HandlerDictionary(json: stored.jsonData(), registry: later)
        #expect(reread.handlers.keys.sorted() == ["add", "stale"])
        try reread.handlers["stale"]?.callSynchronously()
        #expect(recorder.all == ["gone x"])
    }

    @Test func handlersReplaceFailedEntriesAndRemovedFailuresAreDropped() throws {
        var stored = try HandlerDictionary(json: Self.mixed, registry: registry)
        stored.handlers["retyped"] = try Handler(id: "Counter.add", bound: ["amount": 5], registry: registry)
        stored.handlers["new"] = try Handler(id: "Mail.cancelled", bound: ["done": true], registry: registry)
        stored.failures.removeAll { $0.key == "stale" }
        #expect(
            stored.jsonString() == #"{"add":{"bound":{"amount":2},"id":"Counter.add","version":1},"#
                + #""new":{"bound":{"done":true},"id":"Mail.cancelled","version":1},"#
                + #""retyped":{"bound":{"amount":5},"id":"Counter.add","version":1}}"#)
        #expect(try HandlerDictionary(json: stored.jsonData(), registry: registry).failures.isEmpty)
        #expect(HandlerDictionary().jsonString() == "{}")
    }

    @Test func decodesLenientlyInsideOtherCodableTypes() throws {
        struct Settings: Codable {
            var name: String
            var onEvents: HandlerDictionary
        }
        let json = #"{"name":"inbox","onEvents":\#(Self.mixed)}"#
        let decoder = JSONDecoder()
        decoder.userInfo[.handlerRegistry] = registry
        let settings = try decoder.decode(Settings.self, from: Data(json.utf8))
        #expect(settings.onEvents.handlers.keys.sorted() == ["add"])
        #expect(settings.onEvents.failures.map(\.key) == ["retyped", "stale"])

        // Written with JSONEncoder and read back, the failed entries are still there.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let again = try decoder.decode(Settings.self, from: encoder.encode(settings))
        #expect(again.onEvents.jsonString() == Self.mixed)
        #expect(throws: DecodingError.self) {
            try decoder.decode(Settings.self, from: Data(#"{"name":"inbox","onEvents":[]}"#.utf8))
        }
    }
}
