// The Swift block of the article "Operating signals" (HandlerKitSignals.docc/OperatingSignals.md; see
// ArticleSnippetTests). Nothing here runs.
import HandlerKitSignals
import HandlerKitSignalsInspection
import HandlerKitSignalsSQLite

enum OperatingSignalsArticle {
    static func inspect(path: String) async throws {
        // snippet: inspector
        let inspector = SignalStoreInspector(store: try SQLiteSignalStore(inspecting: path))
        let status = try await inspector.status()
        for count in status.counts where count.state == .dead {
            print("\(count.component): \(count.count) dead since \(count.oldestMadeAt)")
        }
        let dead = try await inspector.deliveries(matching: DeliveryFilter(states: [.dead], component: "app"))
        // end snippet
        _ = dead
    }
}
