// The Swift block of the overview of HandlerKitEvents (HandlerKitEvents.docc/HandlerKitEvents.md; see
// ArticleSnippetTests). `Log` is README.md's. Nothing here runs.
import HandlerKitEvents

enum HandlerKitEventsArticle {
    // snippet: events
    final class Player: EventSource {
        static let started = Event<Player.Type, String>("started")
        let eventStorage = EventStorage()
        var volumeChanged: Event<Player, Double> { event("volumeChanged") }
    }

    // end snippet
    static func subscribeAndSend() throws {
        // snippet: events
        Player.started.subscribe(named: "badge") { event in print(event.data) }
        try Player.started.subscribe(Log.playedHandler(prefix: "▶"))
        Player.started.send("intro.mp3")
        // end snippet
    }
}
