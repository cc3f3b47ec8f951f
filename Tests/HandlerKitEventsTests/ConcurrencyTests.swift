import Foundation
import HandlerKit
import HandlerKitEvents
import Testing

@Suite struct ConcurrencyTests {
    @Test func tenThousandConcurrentSendsDeliverToAOneTimeSubscriberExactlyOnce() async throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let event = makeEvent()
        let closure = event.subscribe(once: true) { sent in recorder.record("closure \(sent.data)") }
        let handler = try event.subscribe(
            Handler(id: "Log.record", bound: ["label": "handler"], registry: registry), once: true)
        let (backgroundRan, ran) = AsyncStream<Void>.makeStream()
        let background = event.subscribeInBackground(once: true) { sent in
            recorder.record("background \(sent.data)")
            ran.yield()
        }
        event.subscribe { _ in recorder.record("always") }

        await withTaskGroup(of: Void.self) { group in
            for number in 0..<10_000 {
                group.addTask { event.send("\(number)") }
            }
        }
        _ = await event.sendAndWait("last")
        // The one-time background delivery was queued by one of the sends; wait until it has run.
        for await _ in backgroundRan { break }

        let all = recorder.all
        #expect(all.filter { $0.hasPrefix("closure ") }.count == 1)
        #expect(all.filter { $0.hasPrefix("handler:") }.count == 1)
        #expect(all.filter { $0.hasPrefix("background ") }.count == 1)
        #expect(all.filter { $0 == "always" }.count == 10_001)
        #expect(!closure.isActive && !handler.isActive && !background.isActive)
        #expect(event.subscriptions.count == 1)
    }

    @Test func aOneTimeSubscriberThatSendsTheSameEventRunsOnce() {
        let recorder = Recorder()
        let event = makeEvent()
        event.subscribe(once: true) { sent in
            recorder.record("once \(sent.data)")
            event.send("nested")
        }
        event.send("outer")
        event.send("later")
        #expect(recorder.all == ["once outer"])
    }

    @Test func aSubscriberRemovesItselfSendsAgainAndLocksAnotherDuringASend() throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let event = makeEvent()
        let locked = Shared<Subscription>()
        let first = Shared<Subscription>()
        first.value = event.subscribe(named: "first") { sent in
            recorder.record("first \(sent.data)")
            if let me = first.value { event.remove(me) }
            if let other = locked.value { event.lock(other) }
            event.send("nested")
        }
        event.subscribe(named: "second") { sent in recorder.record("second \(sent.data)") }
        locked.value = try event.subscribe(Handler(id: "Log.record", bound: ["label": "third"], registry: registry))

        event.send("outer")

        // Nested sends are depth first: every subscriber gets "nested" before the outer send goes on.
        // The removed first subscriber is not called again; the locked third one not at all.
        #expect(recorder.all == ["first outer", "second nested", "second outer"])
        #expect(event.subscriptions.map(\.name) == ["second", nil])
        #expect(event.lockedSubscriptions == [locked.value].compactMap { $0 })

        if let subscription = locked.value { event.unlock(subscription) }
        event.send("after")
        #expect(recorder.all.suffix(2) == ["second after", "third:after@started"])
    }

    @Test func aRemovalOrUnlockDuringASendAppliesToTheSubscribersNotYetCalled() {
        let recorder = Recorder()
        let event = makeEvent()
        let later = Shared<Subscription>()
        let locked = Shared<Subscription>()
        event.subscribe { sent in
            recorder.record("first \(sent.data)")
            if let later = later.value { event.remove(later) }
            if let locked = locked.value { event.unlock(locked) }
        }
        later.value = event.subscribe { sent in recorder.record("removed \(sent.data)") }
        locked.value = event.subscribe { sent in recorder.record("unlocked \(sent.data)") }
        if let locked = locked.value { event.lock(locked) }
        event.send("x")
        #expect(recorder.all == ["first x", "unlocked x"])
    }

    @Test func aSubscriberMaySubscribeFromItsCallbackAndTheNewOneGetsTheNextSend() {
        let recorder = Recorder()
        let event = makeEvent()
        event.subscribe(once: true) { _ in
            event.subscribe(named: "late") { sent in recorder.record("late \(sent.data)") }
        }
        event.send("first")
        event.send("second")
        #expect(recorder.all == ["late second"])
    }

    @Test func concurrentSubscribeLockRemoveAndSendKeepTheListConsistent() async {
        let event = Event<Player.Type, Int>("churn", key: UUID().uuidString)
        let recorder = Recorder()
        let keeper = event.subscribe(named: "keeper") { _ in recorder.record("k") }
        await withTaskGroup(of: Void.self) { group in
            for number in 0..<2_000 {
                group.addTask {
                    let subscription = event.subscribe(named: "n\(number % 10)") { _ in }
                    event.send(number)
                    event.lockClosures(named: "n\(number % 10)")
                    subscription.remove()
                }
            }
        }
        #expect(event.subscriptions == [keeper])
        #expect(recorder.all.count == 2_000)
    }
}

/// A value for tests to share with closures they create (set once before use).
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    init() {}

    var value: Value? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
        set {
            lock.lock()
            stored = newValue
            lock.unlock()
        }
    }
}
