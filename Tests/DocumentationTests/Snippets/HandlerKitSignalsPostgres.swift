// The Swift block of the overview of HandlerKitSignalsPostgres (HandlerKitSignalsPostgres.docc/
// HandlerKitSignalsPostgres.md; see ArticleSnippetTests), compiled with the package trait PostgreSQL.
// Nothing here runs.
#if PostgreSQL
// snippet: overview
import HandlerKitSignals
import HandlerKitSignalsPostgres

// end snippet
enum HandlerKitSignalsPostgresArticle {
    static func start() async throws {
        // snippet: overview
        let store = try PostgresSignalStore(url: "postgres://app:secret@db.internal:5432/app?schema=handlerkit_signals")
        let center = try await SignalCenter.start(component: "thumbnailer", store: store)
        // end snippet
        _ = center
    }
}
#endif
