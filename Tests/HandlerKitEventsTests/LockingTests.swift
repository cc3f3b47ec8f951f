import HandlerKit
import HandlerKitEvents
import Testing

@Suite struct LockingTests {
    @Test func lockingAClosureByNameLeavesOtherNamesAndHandlersAlone() throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let event = makeEvent()
        event.subscribe(named: "badge") { sent in recorder.record("badge \(sent.data)") }
        event.subscribe(named: "sound") { sent in recorder.record("sound \(sent.data)") }
        event.subscribe(named: "badge") { sent in recorder.record("badge2 \(sent.data)") }
        try event.subscribe(Handler(id: "Log.record", bound: ["label": "badge"], registry: registry))

        event.lockClosures(named: "badge")
        #expect(event.isLocked(closureNamed: "badge"))
        #expect(!event.isLocked(closureNamed: "sound"))
        #expect(!event.isLocked(closureNamed: "nobody"))
        #expect(event.lockedClosureNames == ["badge"])
        #expect(event.unlockedClosureNames == ["sound"])
        event.send("1")
        #expect(recorder.all == ["sound 1", "badge:1@started"])

        event.unlockClosures(named: "badge")
        event.lockClosures(named: ["sound", "badge"])
        event.send("2")
        event.unlockClosures(named: ["sound"])
        event.send("3")
        #expect(recorder.all.suffix(3) == ["badge:2@started", "sound 3", "badge:3@started"])
    }

    @Test func twoHandlersOfTheSameFunctionWithDifferentBoundValuesLockApart() throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let event = makeEvent()
        let alice = try event.subscribe(Handler(id: "Log.record", bound: ["label": "alice"], registry: registry))
        let bob = try event.subscribe(Handler(id: "Log.record", bound: ["label": "bob"], registry: registry))

        event.lock(alice)
        #expect(event.isLocked(alice) && alice.isLocked)
        #expect(!event.isLocked(bob) && !bob.isLocked)
        event.send("1")
        #expect(recorder.all == ["bob:1@started"])

        event.unlock(alice)
        bob.lock()
        event.send("2")
        #expect(recorder.all.suffix(1) == ["alice:2@started"])
        #expect(event.lockedSubscriptions == [bob])
        #expect(event.unlockedSubscriptions == [alice])
    }

    @Test func lockAndUnlockSetsAndKinds() throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let event = makeEvent()
        let handler = try event.subscribe(Handler(id: "Log.record", bound: ["label": "h"], registry: registry))
        let closure = event.subscribe { sent in recorder.record("c \(sent.data)") }
        let named = event.subscribe(named: "n") { sent in recorder.record("n \(sent.data)") }

        event.lockAll(.handlers)
        event.send("1")
        event.unlockAll(.handlers)
        event.lockAll(.closures)
        event.send("2")
        event.unlockAll()
        event.lock([closure, named])
        event.send("3")
        event.unlock(Set([closure]))
        event.lockAll()
        event.send("4")
        #expect(event.lockedSubscriptions == [handler, closure, named])
        event.unlockAll()
        event.send("5")
        #expect(recorder.all == ["c 1", "n 1", "h:2@started", "h:3@started", "h:5@started", "c 5", "n 5"])
    }

    @Test func removeOneByNameAndAll() throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let event = makeEvent()
        let handler = try event.subscribe(Handler(id: "Log.record", bound: ["label": "h"], registry: registry))
        let first = event.subscribe(named: "x") { _ in recorder.record("x1") }
        event.subscribe(named: "x") { _ in recorder.record("x2") }
        let other = event.subscribe(named: "y") { _ in recorder.record("y") }

        event.removeClosures(named: "x")
        #expect(event.subscriptions == [handler, other])
        #expect(!first.isActive && handler.isActive)
        other.remove()
        event.send("1")
        #expect(recorder.all == ["h:1@started"])
        event.removeAll(.handlers)
        #expect(event.subscriptions.isEmpty)
        event.subscribe { _ in recorder.record("z") }
        event.removeAll()
        event.send("2")
        #expect(recorder.all == ["h:1@started"])
    }

    @Test func aSubscriptionOfAnotherEventIsNotTouched() {
        let one = makeEvent(), two = makeEvent()
        let subscription = one.subscribe { _ in }
        two.lock(subscription)
        two.remove(subscription)
        #expect(!subscription.isLocked && subscription.isActive)
        #expect(!two.isLocked(subscription))
        #expect(one.subscriptions == [subscription])
    }
}
