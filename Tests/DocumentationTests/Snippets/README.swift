// The Swift blocks of README.md (see ArticleSnippetTests). Nothing here runs.
import Foundation
import HandlerKit
import HandlerKitEvents
import HandlerKitSignals
import HandlerKitSignalsSQLite

// snippet: handlers
import HandlerKit

extension OMEMO {
    @handler(instance: "account.omemo")             // how to find the instance, from the arguments
    func bundleFetched(account: Account, jid: String, success: Bool, errorReason: String? = nil,
                       rid: String) async throws { /* … */ }
}

@handler(id: "cleanup.v1")                           // a stable id that survives renames
func cleanUp(reason: String) { /* … */ }

// end snippet

// snippet: events
import HandlerKitEvents

final class Player: EventSource {
    static let started = Event<Player.Type, String>("started")          // class-level: one per type
    let eventStorage = EventStorage()
    var volumeChanged: Event<Player, Double> { event("volumeChanged") }  // instance-level: one per object
}

enum Log {
    @handler static func played(prefix: String, data: String) { /* … */ }
}

// end snippet
// snippet: signals
import HandlerKitSignals
import HandlerKitSignalsSQLite

enum Upload {
    @handler static func finished(file: String, success: Bool, remotePath: String?, deliveryKey: String) { /* … */ }
}

// end snippet
/// Where a profile picture was uploaded.
struct AvatarURL: Codable, Sendable {
    var url: URL
}

extension Avatar {
    /// Keeps an uploaded picture's address for the next launch (`Avatar` is the one of "Durable promises").
    @handler static func saved(value: AvatarURL?) {}
}

enum Readme {
    static func handlers(deviceID: String, account: Account, jid: String) async throws {
        // snippet: handlers
        try HandlerRegistry.shared.register(.chat)          // once at start-up; generated for module Chat

        // Compiler-checked: a misspelt handler or a bound value of the wrong type does not compile.
        let handler = try OMEMO.bundleFetchedHandler(rid: deviceID, invalidation: cleanUpHandlerID)
        let json = handler.jsonData()                       // {"bound":{"rid":"…"},"id":"OMEMO.bundleFetched",…}

        // Later, maybe in another process:
        let rebuilt = try Handler(json: json)
        try await OMEMO.callBundleFetchedHandler(rebuilt, account: account, jid: jid, success: true)
        try await rebuilt.invalidate(["reason": "done"])    // runs cleanup.v1 once; the handler then ends
        // end snippet
    }

    static func events() async throws {
        // snippet: events
        let token = Player.started.subscribe(named: "badge") { event in print(event.data) }
        try Player.started.subscribe(Log.playedHandler(prefix: "▶"))   // a handler: checked now, saved with the archive
        Player.started.send("intro.mp3")
        let failures = await Player.started.sendAndWait("outro.mp3")   // waits for every delivery
        token.remove()
        // end snippet
        _ = failures
    }

    static func signals(sharedContainer: String) async throws {
        // snippet: signals
        let store = try SQLiteSignalStore(path: sharedContainer + "/signals.sqlite")   // one file, every process
        let center = try await SignalCenter.start(component: "app", store: store)

        let signal = SignalID()                                     // pass signal.rawValue to the process doing the work
        try await center.register(try Upload.finishedHandler(file: "report.pdf"), for: signal)

        // The share extension, later: its own center on the same store; the id rebuilt with SignalID(string).
        let share = try await SignalCenter.start(component: "share", store: store)
        let result = try await share.post(signal, payload: ["success": true, "remotePath": "/Docs/report.pdf"])
        if result.hadNoConsumer { /* … */ }                         // never silent

        try await center.stop()                                     // durable consumers wait for the next run
        // end snippet
    }

    static func suspension(center: SignalCenter) async throws {
        // snippet: suspension
        _ = try await center.suspend(finishingWithin: .seconds(2))   // sceneDidEnterBackground, serviceExtensionTimeWillExpire
        _ = try await center.resume()                                  // sceneWillEnterForeground
        // end snippet
    }

    static func promise(center: SignalCenter) async throws {
        // snippet: promise
        let avatar = try await center.makePromise(of: AvatarURL.self, fallback: try Avatar.savedHandler())
        // … the extension, later, in its own process: try await share.fulfil(avatar, with: url, settlementKey: "upload-7")
        let url = try await center.value(of: avatar)                   // resumes when any process settles it
        // end snippet
        _ = url
    }
}
