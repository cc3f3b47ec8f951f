import HandlerKit
import HandlerKitEvents
import Testing

/// Instance events never keep their object alive, and die with it.
@Suite struct LifetimeTests {
    @Test func subscribingAndSendingDoNotKeepTheObjectOrItsEventsAlive() async throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        weak var weakDownload: Download?
        weak var weakEvent: Event<Download, Double>?
        var subscriptions: [Subscription] = []
        do {
            let download = Download()
            weakDownload = download
            let progress = download.progress
            weakEvent = progress
            subscriptions.append(
                progress.subscribe { sent in recorder.record("closure \(sent.data) from \(sent.sender === sent.sender)")
                })
            subscriptions.append(progress.subscribeInBackground { sent in recorder.record("background \(sent.data)") })
            subscriptions.append(progress.subscribe(once: true) { sent in recorder.record("once \(sent.data)") })
            subscriptions.append(try progress.subscribe(Handler(id: "Log.any", registry: registry)))
            download.progress.send(0.25)
            _ = await download.progress.sendAndWait(0.5)
        }
        #expect(weakDownload == nil)
        #expect(weakEvent == nil)
        #expect(subscriptions.allSatisfy { !$0.isActive })
        // (Background deliveries interleave with the foreground ones in no fixed order.)
        #expect(
            recorder.all.sorted() == [
                "any:0.25", "any:0.5", "background 0.25", "background 0.5",
                "closure 0.25 from true", "closure 0.5 from true", "once 0.25",
            ])
    }

    @Test func aNewObjectInheritsNoSubscriptionsEvenAtAReusedAddress() {
        // Objects freed one after another: the allocator hands their addresses out again, and no
        // new object may find the subscriptions of the one that lived there before.
        for _ in 0..<200 {
            let download = Download()
            #expect(download.progress.subscriptions.isEmpty)
            #expect(download.finished.subscriptions.isEmpty)
            download.progress.subscribe { _ in }
            download.finished.subscribe(named: "done") { _ in }
        }
    }

    @Test func aClosureThatUsesTheSenderFromTheEventDoesNotRetainIt() {
        weak var weakDownload: Download?
        let recorder = Recorder()
        do {
            let download = Download()
            weakDownload = download
            download.finished.subscribe { sent in recorder.record("finished \(sent.sender.eventIdentity ?? "-")") }
            download.finished.send()
        }
        #expect(weakDownload == nil)
        #expect(recorder.all == ["finished -"])
    }

    @Test func removingAnObjectsEventsEndsTheirSubscriptions() {
        let download = Download()
        let progress = download.progress.subscribe { _ in }
        let finished = download.finished.subscribe { _ in }
        download.removeEvent(named: "progress")
        #expect(!progress.isActive && finished.isActive)
        #expect(download.progress.subscriptions.isEmpty)
        download.progress.subscribe { _ in }
        download.removeAllEvents()
        #expect(!finished.isActive)
        #expect(download.progress.subscriptions.isEmpty && download.finished.subscriptions.isEmpty)
    }

    @Test func anEventKeptAfterItsObjectIsFreedDeliversNothing() {
        let recorder = Recorder()
        var event: Event<Download, Double>?
        do {
            let download = Download()
            event = download.progress
            event?.subscribe { _ in recorder.record("ran") }
        }
        event?.send(1)
        #expect(recorder.all.isEmpty)
    }
}
