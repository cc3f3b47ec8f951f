// Stand-ins for what the snippets of the article "Durable promises" (Snippets/DurablePromises.swift)
// call besides HandlerKitSignals: an app's XMPP client and upload, and a worker's renderer. Each
// declares only what the snippets use. Nothing here runs.
import Foundation
import HandlerKitSignals

/// The upload slot an XMPP server hands out.
struct AvatarSlot: Codable, Sendable {
    var putURL: URL
}

/// The picture to upload.
struct AvatarFile: Sendable {
    var data: Data
}

/// The reply to an upload slot request, as the extension receives it.
struct UploadSlotReply: Sendable {
    var stanzaID: String
    var promise: DurablePromise<AvatarSlot>
    var slot: AvatarSlot
}

/// The app's XMPP connection.
struct XMPPClient: Sendable {
    func requestUploadSlot(for file: AvatarFile, promise: DurablePromise<AvatarSlot>) async throws {}
}

let xmpp = XMPPClient()

func send(_ file: AvatarFile, to slot: AvatarSlot) async throws {}

func show(_ message: String) {}

/// A picture's thumbnail, as a worker renders it.
struct Thumbnail: Codable, Sendable {
    var png: Data

    static func render(_ source: URL) async throws -> Thumbnail { Thumbnail(png: Data()) }
}
