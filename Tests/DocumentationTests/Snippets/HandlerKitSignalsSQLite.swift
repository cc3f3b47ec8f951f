// The Swift block of the overview of HandlerKitSignalsSQLite (HandlerKitSignalsSQLite.docc/
// HandlerKitSignalsSQLite.md; see ArticleSnippetTests). Nothing here runs.
import Foundation
import GRDB

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

    static func postInTransaction(
        appDatabase: DatabasePool, store: SQLiteSignalStore, photoID: String, owner: String
    ) async throws {
        // snippet: post-in-transaction
        try await appDatabase.write { db in
            try db.execute(sql: "INSERT INTO photos (id, owner) VALUES (?, ?)", arguments: [photoID, owner])
            try store.post("thumbnails.requested", payload: ["photoID": photoID], in: db)
        }
        // end snippet
    }
}
