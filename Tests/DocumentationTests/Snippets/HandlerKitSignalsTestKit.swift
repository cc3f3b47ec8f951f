// The Swift block of the overview of HandlerKitSignalsTestKit (HandlerKitSignalsTestKit.docc/
// HandlerKitSignalsTestKit.md; see ArticleSnippetTests). Its test is disabled: the store's own tests run
// the suite.
import HandlerKitSignals

// snippet: conformance
import Foundation
import HandlerKitSignalsTestKit
import Testing

// end snippet
/// A store of your own, here the in-memory one.
func MyStore(url: String, schema: String) throws -> InMemorySignalStore {
    InMemorySignalStore(name: "\(url)/\(schema)")
}

@Suite(.disabled("the snippet of a document; HandlerKitSignalsTests runs the suite on every store"))
struct HandlerKitSignalsTestKitArticle {
    let testURL = "memory://conformance"

    // snippet: conformance
    @Test(arguments: SignalStoreConformance.checks)
    func conforms(_ check: SignalStoreConformance.Check) async throws {
        try await check.run { try MyStore(url: testURL, schema: "conformance_\(UUID().uuidString.prefix(8))") }
    }
    // end snippet
}
