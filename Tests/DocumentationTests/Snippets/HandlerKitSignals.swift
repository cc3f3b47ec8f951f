// The Swift block of the overview of HandlerKitSignals (HandlerKitSignals.docc/HandlerKitSignals.md; see
// ArticleSnippetTests). Nothing here runs.
import HandlerKit

// snippet: overview
import HandlerKitSignals
import HandlerKitSignalsSQLite

// end snippet
enum HandlerKitSignalsArticle {
    static func overview(sharedContainer: String) async throws {
        // snippet: overview
        let store = try SQLiteSignalStore(path: sharedContainer + "/signals.sqlite")
        let center = try await SignalCenter.start(component: "app", store: store)

        let signal = SignalID()
        try await center.register(try Upload.finishedHandler(file: "report.pdf"), for: signal)

        // In any process that opens the store, later:
        let result = try await center.post(signal, payload: ["success": true, "remotePath": "/Docs/report.pdf"])
        if result.hadNoConsumer { /* nobody was waiting: never silent */ }

        // end snippet
    }

    // snippet: overview
    enum Upload {
        @handler static func finished(file: String, success: Bool, remotePath: String?, deliveryKey: String) { }
    }
    // end snippet
}
