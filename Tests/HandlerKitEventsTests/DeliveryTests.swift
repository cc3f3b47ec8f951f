import Foundation
import HandlerKit
import HandlerKitEvents
import Testing

@Suite struct DeliveryTests {
    @Test func subscribersReceiveSenderDataAndNameInSubscriptionOrder() throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let event = makeEvent("started")
        event.subscribe { sent in
            recorder.record("closure1:\(sent.data)@\(sent.eventName):\(sent.sender == Player.self)")
        }
        try event.subscribe(Handler(id: "Log.record", bound: ["label": "h1"], registry: registry))
        event.subscribe(named: "named") { sent in recorder.record("closure2:\(sent.data)") }
        try event.subscribe(Handler(id: "Log.inspect", registry: registry))

        event.send("intro.mp3")

        #expect(
            recorder.all == [
                "closure1:intro.mp3@started:true", "h1:intro.mp3@started", "closure2:intro.mp3",
                "inspect:started:intro.mp3:true",
            ])
        #expect(event.name == "started")
    }

    @Test func anEventWithoutDataSendsNone() throws {
        let recorder = Recorder()
        let download = Download()
        download.finished.subscribe { sent in recorder.record("finished by \(sent.sender === download)") }
        download.finished.send()
        #expect(recorder.all == ["finished by true"])
    }

    @Test func instanceEventsAreOnePerObjectAndName() {
        let recorder = Recorder()
        let first = Download(), second = Download()
        first.progress.subscribe { sent in recorder.record("first \(sent.data)") }
        second.progress.subscribe { sent in recorder.record("second \(sent.data)") }
        #expect(first.progress === first.progress)
        first.progress.send(0.5)
        second.progress.send(1)
        #expect(recorder.all == ["first 0.5", "second 1.0"])
    }

    @Test func boundValuesAndCallTimeValuesReachTheHandler() throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let event = Event<Player.Type, Int?>("counted", key: UUID().uuidString)
        try event.subscribe(Handler(id: "Log.account", bound: ["account": "ada"], registry: registry))
        event.send(3)
        event.send(nil)  // a nil payload is an absent `data`: the optional parameter gets nil
        #expect(recorder.all == ["account:ada:3", "account:ada:nil"])
        // A mandatory `Any` parameter could receive an absent value, so it is refused when subscribing.
        #expect(throws: EventError.self) { try event.subscribe(Handler(id: "Log.any", registry: registry)) }
        let strings = makeEvent()
        try strings.subscribe(Handler(id: "Log.any", registry: registry))
        strings.send("text")
        #expect(recorder.all.last == "any:text")
    }

    @Test func aThrowingSubscriberDoesNotStopTheOthersAndSendAndWaitReturnsWhatEachThrew() async throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let event = makeEvent()
        let failing = try event.subscribe(Handler(id: "Log.fail", bound: ["code": 7], registry: registry))
        event.subscribe { sent in recorder.record("after:\(sent.data)") }
        let backgroundFailing = event.subscribeInBackground(named: "bg") { _ in throw Failure(code: 9) }

        let failures = await event.sendAndWait("x")

        #expect(recorder.all == ["after:x"])
        #expect(failures.map(\.subscription) == [failing, backgroundFailing])
        #expect(failures.map { $0.error as? Failure } == [Failure(code: 7), Failure(code: 9)])
        #expect(failures[0].description.contains("Log.fail"))
    }

    @Test func fireAndForgetSendGivesErrorsToTheHook() async throws {
        let event = makeEvent("hooked")
        let key = try #require(event.persistenceKey)
        let collected = Recorder()
        let previous = EventErrorHook.handler
        defer { EventErrorHook.handler = previous }
        EventErrorHook.handler = { failure in
            // Other suites run at the same time; only this test's event counts.
            if failure.subscription.name?.hasPrefix(key) == true {
                collected.record("\(failure.subscription.name ?? ""):\(failure.error)")
            } else {
                previous(failure)
            }
        }
        event.subscribe(named: "\(key) first") { _ in throw Failure(code: 1) }
        event.subscribeInBackground(named: "\(key) background") { _ in throw Failure(code: 2) }
        event.subscribe(named: "\(key) last") { _ in }
        event.send("x")
        // The background delivery ends later: an awaited send on the same subscriber queue runs after it.
        _ = await event.sendAndWait("y")
        #expect(collected.all == ["\(key) first:Failure(code: 1)", "\(key) background:Failure(code: 2)"])
    }

    @Test func backgroundDeliveriesToOneSubscriberKeepTheirSendOrder() async throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let event = Event<Player.Type, Int>("tick", key: UUID().uuidString)
        event.subscribeInBackground { sent in
            if sent.data % 7 == 0 { await Task.yield() }
            recorder.record("a\(sent.data)")
        }
        event.subscribeInBackground(once: false) { sent in recorder.record("b\(sent.data)") }
        try event.subscribe(Handler(id: "Log.count", registry: registry), inBackground: true)
        for number in 0..<500 { event.send(number) }
        _ = await event.sendAndWait(500)

        let all = recorder.all
        for prefix in ["a", "b", "count:"] {
            let numbers = all.filter { $0.hasPrefix(prefix) }.compactMap { Int($0.dropFirst(prefix.count)) }
            #expect(numbers == Array(0...500), "\(prefix)")
        }
    }

    @Test func backgroundSubscribersRunOffTheSendersThread() async throws {
        // The subscriber waits for a value that is only given after `send` has returned: run on the
        // sender's thread, it would never get it.
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let recorder = Recorder()
        let event = makeEvent()
        event.subscribeInBackground { sent in
            for await text in stream {
                recorder.record("\(sent.data) then \(text)")
                break
            }
        }
        event.send("sent")
        continuation.yield("after send returned")
        continuation.finish()
        _ = await event.sendAndWait("second")
        #expect(recorder.all.first == "sent then after send returned")
    }

    @Test func asyncHandlersRunInBackground() async throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let event = makeEvent()
        try event.subscribe(Handler(id: "Log.slow", bound: ["label": "s"], registry: registry), inBackground: true)
        let failures = await event.sendAndWait("x")
        #expect(failures.isEmpty)
        #expect(recorder.all == ["slow s:x"])
    }
}
