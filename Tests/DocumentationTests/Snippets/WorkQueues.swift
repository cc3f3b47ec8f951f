// The code of the article "Work queues" (HandlerKitSignals.docc/WorkQueues.md), compiled: each region
// between `// snippet: <name>` and `// end snippet` is one of the article's code blocks, character for
// character, in the article's order (ArticleSnippetTests checks it). The worker pool needs the package
// trait PostgreSQL; the iOS example uses `ProcessSignals` of the article "Signals in an iOS app and its
// extensions" (SignalsOnIOS.swift) and the Apple stand-ins (IOSStandIns.swift). Nothing here runs.
import Foundation
import HandlerKit
import HandlerKitSignals

/// What renders thumbnails in a worker process of the first example (its image library, its
/// storage client): made once per process, not `Codable`.
final class ThumbnailRenderer: Sendable {
    func render(photoID: String, as name: String) async throws {}
}

/// What uploads a file, in the app of the second example.
enum UploadClient {
    static func upload(file: String, idempotencyKey: String) async throws {}
}

/// A conversation and a message of the chat app in "Ordering keys".
struct Conversation {
    var id: String
}

struct ChatMessage {
    var id: String
}

enum OrderingKeysExample {
    static func send(_ message: ChatMessage, in conversation: Conversation, center: SignalCenter) async throws {
        // snippet: ordering-keys
        try await center.post("chat.send", payload: ["message": message.id], orderingKey: conversation.id)
        // end snippet
    }
}

/// An account of the mail app in "Debouncing".
struct MailAccount {
    var id: String
}

enum DebouncingExample {
    static func accountChanged(_ account: MailAccount, center: SignalCenter) async throws {
        // snippet: debouncing
        try await center.post(
            "inbox.refresh", payload: ["account": account.id],
            debounce: Debounce(key: account.id, window: .seconds(1), maximumDelay: .seconds(10)))
        // end snippet
    }
}

#if PostgreSQL
import HandlerKitSignalsPostgres

// snippet: worker-pool
/// The work: one handler, which any worker runs.
enum Thumbnails {
    static let requested: SignalID = "thumbnails.requested"

    /// Renders the thumbnail of `photoID` with the worker's renderer. A retry after a crash runs it
    /// again with the same `deliveryKey`, so it writes its result where a second run overwrites the first.
    @handler static func render(photoID: String, deliveryKey: String, renderer: ThumbnailRenderer) async throws {
        try await renderer.render(photoID: photoID, as: deliveryKey)
    }
}

/// Each worker host: a center of the workers' component that runs up to 8 renders at once, and
/// gives each its renderer.
func startWorker(renderer: ThumbnailRenderer) async throws -> SignalCenter {
    var options = SignalCenter.Options(queueConcurrency: 8)
    options.context.provide(renderer, as: "renderer")
    let center = try await SignalCenter.start(
        component: "thumbnail-workers", store: try PostgresSignalStore.fromEnvironment(), options: options)
    try await center.register(
        try Thumbnails.renderHandler(), for: Thumbnails.requested, lifetime: .queue, delivery: .everyRevision,
        id: ConsumerID("thumbnails.render"))
    return center
}

/// The API host: its route for `POST /photos/{id}/thumbnail` calls this with its own center and the
/// client's request id, so that a client's retry posts nothing new.
func acceptThumbnailRequest(photoID: String, requestID: String, api: SignalCenter) async throws -> Bool {
    let result = try await api.post(Thumbnails.requested, payload: ["photoID": photoID], idempotencyKey: requestID)
    // No worker has ever registered the queue: answer 503 rather than accept work nobody takes.
    return !result.hadNoConsumer
}
// end snippet
#endif

#if !canImport(Darwin)
// snippet: shared-queue
/// The uploads that the app and its File Provider extension both work on.
enum UploadQueue {
    static let requested: SignalID = "uploads.requested"
    /// The center of the queue's component in this process (the app's, or the extension's).
    static let signals = ProcessSignals(component: "uploads")

    /// Starts (or resumes) the queue in this process, registering its consumer if no process has yet.
    static func activate() async {
        guard let center = await signals.activate() else { return }
        do {
            try await center.register(
                try UploadJobs.uploadHandler(), for: requested, lifetime: .queue, delivery: .everyRevision,
                id: ConsumerID("uploads.upload"))
        } catch {
            print("signals: the upload queue could not be registered: \(error)")
        }
    }

    /// Queues the upload of `file`: whichever process runs next uploads it.
    static func enqueue(file: String) async throws {
        guard let center = await signals.activate() else { return }
        try await center.post(requested, payload: ["file": file])
    }
}

enum UploadJobs {
    @handler static func upload(file: String, deliveryKey: String) async throws {
        try await UploadClient.upload(file: file, idempotencyKey: deliveryKey)
    }
}
// end snippet
#endif
