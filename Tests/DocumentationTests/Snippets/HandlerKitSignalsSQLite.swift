// The Swift block of the overview of HandlerKitSignalsSQLite (HandlerKitSignalsSQLite.docc/
// HandlerKitSignalsSQLite.md; see ArticleSnippetTests). Nothing here runs.
import Foundation

// snippet: overview
import HandlerKitSignals
import HandlerKitSignalsSQLite

// end snippet
enum HandlerKitSignalsSQLiteArticle {
    static func start(sharedContainer: URL) async throws {
        // snippet: overview
        let store = try SQLiteSignalStore(path: sharedContainer.appendingPathComponent("signals.sqlite").path)
        let center = try await SignalCenter.start(component: "app", store: store)
        // end snippet
        _ = center
    }
}
