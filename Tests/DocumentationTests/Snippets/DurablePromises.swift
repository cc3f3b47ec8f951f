// The code of the article "Durable promises" (HandlerKitSignals.docc/DurablePromises.md), compiled
// with the build plugin: each snippet is one of the article's code blocks, character for character, in
// the article's order (ArticleSnippetTests checks it). What the snippets call besides HandlerKitSignals
// is in PromiseStandIns.swift. Nothing here runs.
import Foundation
import HandlerKit
import HandlerKitSignals

// snippet: app-awaits
func uploadAvatar(_ file: AvatarFile, of account: Account, center: SignalCenter) async throws {
    let upload = try await center.makePromise(
        of: AvatarSlot.self, fallback: try Avatar.slotArrivedHandler(account: account.id),
        deadline: Date().addingTimeInterval(120))
    try await xmpp.requestUploadSlot(for: file, promise: upload)  // the id travels with the request
    do {
        let slot = try await center.value(of: upload)
        try await send(file, to: slot)
    } catch PromiseError.rejected(_, let rejection) {
        show(rejection.message)
    }
}
// end snippet

// snippet: extension-fulfils
func uploadSlotArrived(_ reply: UploadSlotReply, nseCenter: SignalCenter) async throws {
    try await nseCenter.fulfil(reply.promise, with: reply.slot, settlementKey: reply.stanzaID)
}
// end snippet

// snippet: fallback
enum Avatar {
    @handler
    static func slotArrived(account: String, promiseID: String, outcome: String, value: AvatarSlot?) {
        // Store the slot; the next launch uploads the avatar.
    }
}
// end snippet

// snippet: request-handler
func thumbnail(of source: URL, center: SignalCenter) async throws -> Thumbnail {
    let job = try await center.makePromise(of: Thumbnail.self, deadline: Date().addingTimeInterval(30))
    try await center.post("jobs.thumbnail", payload: ["source": source, "promise": job])
    return try await center.value(of: job)  // resumes when any worker fulfils it
}
// end snippet

// snippet: worker
enum ThumbnailJobs {
    @handler
    static func render(
        source: URL, promise: DurablePromise<Thumbnail>, deliveryKey: String, signalCenter: SignalCenter
    ) async throws {
        let thumbnail = try await Thumbnail.render(source)
        do {
            try await signalCenter.fulfil(promise, with: thumbnail, settlementKey: deliveryKey)
        } catch PromiseError.alreadySettled {
            // Timed out or cancelled first: nobody awaits this thumbnail any more.
        }
    }
}
// end snippet
