import Foundation
import HandlerKit
import Testing

/// `HandlerValue(json:)`, `jsonData()` and `Handler(documentValue:)`: documents that embed handler documents.
@Suite struct HandlerValueJSONTests {
    @Test func anyJSONValueRoundTripsExactly() throws {
        let text = #"{"a":[1,-0.0,1e400,"é\n"],"b":{"c":null,"d":true}}"#
        let value = try HandlerValue(json: Data(text.utf8))
        #expect(String(decoding: value.jsonData(), as: UTF8.self) == text)
        #expect(String(decoding: value.jsonData(prettyPrinted: true), as: UTF8.self).contains("\n  \"a\": ["))
    }

    @Test func badJSONIsATypedErrorWithItsPlace() {
        #expect(
            throws: HandlerError.malformedJSON(
                reason: "unexpected end of document inside an array: the document is truncated", line: 2, column: 6,
                offset: 11)
        ) {
            try HandlerValue(json: Data("{\"a\":\n[1, 2".utf8))
        }
        #expect(throws: HandlerError.documentTooLarge(size: 8, limit: 4)) {
            try HandlerValue(json: Data("[1,2,34]".utf8), limits: DecodingLimits(maximumDocumentSize: 4))
        }
        #expect(throws: HandlerError.nestingTooDeep(limit: 2, line: 1, column: 3)) {
            try HandlerValue(json: Data("[[[]]]".utf8), limits: DecodingLimits(maximumDepth: 2))
        }
    }

    @Test func aHandlerIsRebuiltFromItsDocumentValue() throws {
        let registry = try makeRegistry(Recorder())
        let handler = try Handler(id: "Mail.fetched", bound: ["rid": "r1", "limit": 3], registry: registry)
        let rebuilt = try Handler(documentValue: handler.documentValue(), registry: registry)
        #expect(rebuilt.jsonData() == handler.jsonData())
        #expect(rebuilt.descriptor === handler.descriptor)
        #expect(throws: HandlerError.noHandlersRegistered(id: "Mail.fetched", path: "id")) {
            try Handler(documentValue: handler.documentValue(), registry: HandlerRegistry())
        }
    }
}
