// The Swift block of the article "Saving subscriptions" (HandlerKitEvents.docc/SavingSubscriptions.md;
// see ArticleSnippetTests). `Player` is README.md's. Nothing here runs.
import Foundation
import HandlerKitEvents

enum SavingSubscriptionsArticle {
    /// An account whose instance event is saved: its `eventIdentity` tells it from the other accounts.
    final class ChatAccount: EventSource {
        let eventStorage = EventStorage()
        let jid: String
        var eventIdentity: String? { jid }
        var messageReceived: Event<ChatAccount, String> { event("messageReceived") }

        init(jid: String) { self.jid = jid }
    }

    static func log(_ problem: some CustomStringConvertible) {}

    static func saveAndRestore(account: ChatAccount, fileURL: URL) throws {
        // snippet: archive
        let archive = SubscriptionArchive()
        try archive.add(Player.started)
        try archive.add(account.messageReceived)      // an instance event: its object has an eventIdentity

        let report = try archive.restore(from: fileURL)  // at start-up, after registering your handlers
        for problem in report.problems { log(problem) }

        try archive.save(to: fileURL)                   // whenever the subscriptions change
        // end snippet
    }
}
