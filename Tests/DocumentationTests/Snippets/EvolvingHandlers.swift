// The Swift blocks of the article "Evolving Handlers" (HandlerKit.docc/EvolvingHandlers.md; see
// ArticleSnippetTests). Its `Player` is README.md's. Nothing here runs: the suite is disabled.
import Foundation
import HandlerKit
import HandlerKitEvents
import HandlerKitSignals
import HandlerKitSignalsInspection
import HandlerKitSignalsSQLite
import Testing

extension Bundle {
    /// Where an app's test target finds its resources (this target has none).
    static var module: Bundle { .main }
}

// snippet: former-names
enum Mailbox {                                           // formerly `enum Inbox`
    @handler(formerly: "Inbox.fetch", renamed: ["folder": "box"])
    static func load(box: String, limit: Int, unread: Bool = false) { /* … */ }   // formerly fetch(folder:limit:)
}
// end snippet

// snippet: stored-data-test
import Foundation
import HandlerKit
import HandlerKitEvents
import HandlerKitSignals
import HandlerKitSignalsSQLite
import Testing

// end snippet
@Suite(.disabled("the snippets of a document, without its app's stored data"))
enum EvolvingHandlersArticle {
    // snippet: stored-data-test
    @Suite struct StoredDataTests {
        let snapshots = Bundle.module.resourceURL!.appending(path: "StoredData")
        let registry = HandlerRegistry()

        init() throws {
            try registry.register(.chat)  // the app's handlers, as the app registers them at start-up
        }

        @Test func pendingUploadsStillRebuild() throws {
            let data = try Data(contentsOf: snapshots.appending(path: "pending-uploads.json"))
            let pending = try HandlerDictionary(json: data, registry: registry)
            #expect(pending.failures.isEmpty, "\(pending.failures)")
        }

        @Test func savedSubscriptionsStillRestore() throws {
            let archive = SubscriptionArchive(registry: registry)
            try archive.add(Player.started)
            let report = try archive.check(Data(contentsOf: snapshots.appending(path: "subscriptions.json")))
            #expect(report.problems.isEmpty, "\(report)")
        }

        @Test func storedSignalHandlersStillRebuild() async throws {
            let store = try SQLiteSignalStore(inspecting: snapshots.appending(path: "signals.sqlite").path)
            let problems = try await SignalStoreInspector(store: store).checkStoredHandlers(registry: registry)
            #expect(problems.isEmpty, "\(problems.map(\.description).joined(separator: "\n"))")
        }
    }
    // end snippet
}
