import Foundation
import HandlerKit
import HandlerKitEvents

/// A type with a class-level event: sent with the subject of each message that arrives.
enum Inbox {
    static let messageArrived = Event<Inbox.Type, String>("messageArrived", key: "Inbox.messageArrived")

    /// Subscribed to `messageArrived` with a bound account; receives the event's `data` and `eventName`.
    @handler
    static func notify(account: Account, data: String, eventName: String) {
        DemoLog.shared.ran("Inbox.notify", "\(eventName) \"\(data)\" for \(account.name)")
    }
}

/// The events step: the first process subscribes a handler with bound values to a class-level event
/// and saves the subscriptions; the second restores them and sends the event, and the handler runs there.
enum EventsStep {
    /// The subscriptions file next to the handler file.
    static func file(next handlerFile: URL) -> URL {
        handlerFile.appendingPathExtension("events.json")
    }

    static func archive() throws -> SubscriptionArchive {
        let archive = SubscriptionArchive()
        try archive.add(Inbox.messageArrived)
        return archive
    }

    /// First process: subscribe and save.
    static func subscribeAndSave(next handlerFile: URL) throws {
        try Inbox.messageArrived.subscribe(Inbox.notifyHandler(account: Account(name: "ada")))
        let file = file(next: handlerFile)
        try archive().save(to: file)
        Say.line(
            "Events: subscribed Inbox.notify (account: ada) to Inbox.messageArrived; saved to \(file.lastPathComponent)"
        )
    }

    /// Second process: restore and send.
    static func restoreAndSend(next handlerFile: URL) async throws {
        let report = try archive().restore(from: file(next: handlerFile))
        Say.line("Events: \(report) into Inbox.messageArrived; sending \"Lunch?\"")
        guard report.restored == 1, report.problems.isEmpty else {
            throw DemoFailure("expected 1 restored subscription: \(report)")
        }
        let failures = await Inbox.messageArrived.sendAndWait("Lunch?")
        guard failures.isEmpty else { throw DemoFailure("subscribers failed: \(failures)") }
        try SecondProcess.checkRan("Inbox.notify")
    }
}
