// The Swift block of the overview of HandlerKitSignalsInspection (HandlerKitSignalsInspection.docc/
// HandlerKitSignalsInspection.md; see ArticleSnippetTests). Nothing here runs.
import Foundation

// snippet: overview
import HandlerKitSignalsInspection
import HandlerKitSignalsSQLite

// end snippet
enum HandlerKitSignalsInspectionArticle {
    static func look(at path: String) async throws {
        // snippet: overview
        let inspector = SignalStoreInspector(store: try SQLiteSignalStore(inspecting: path))
        let dead = try await inspector.deliveries(matching: DeliveryFilter(states: [.dead]))
        // end snippet
        _ = dead
    }
}
