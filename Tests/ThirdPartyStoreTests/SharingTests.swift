import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection
import TestWaiting
import Testing
import ThirdPartyStore

/// Store objects over the same folder share it as processes do: each sees what the others wrote,
/// wakes their centers, and takes over their runs once their proof of life is gone.
@Suite("Third-party store: store objects sharing a JSON file")
struct SharingTests {
    let folder = TemporaryFolder()

    @Test func twoStoreObjectsSeeEachOthersPosts() async throws {
        let consuming = try JSONFileSignalStore(folder: folder.path)
        let posting = try JSONFileSignalStore(folder: folder.path)
        let received = Received()
        let registry = try makeRegistry(recordingInto: received)
        let consumer = try await SignalCenter.start(component: "consumer", store: consuming, registry: registry)
        try await consumer.register(Handler(id: "Greeting.received", registry: registry), for: "greeting")
        let poster = try await SignalCenter.start(component: "poster", store: posting, registry: registry)

        let posted = try await poster.post("greeting")
        #expect(posted.deliveries == 1, "the post through one object found the consumer registered through the other")
        // Woken through the wake file and delivered through the other object.
        try await TestWait.until("the post delivered", seen: { "\(received.all)" }) { received.all.count == 1 }
        let kept = try await poster.post("kept", ifUnconsumed: .keep(for: .seconds(600)))
        #expect(kept.kept)
        #expect(try await consuming.signalRecords().contains { $0.signalID == "kept" })

        try await poster.stop()
        try await consumer.stop()
        #expect(try await posting.statistics().runs == 0)
    }

    @Test func aRunWhoseLockWasReleasedIsTakenOverByAnotherCenter() async throws {
        let dying = try JSONFileSignalStore(folder: folder.path)
        let received = Received()
        let registry = try makeRegistry(recordingInto: received)
        var manual = SignalCenter.Options()
        manual.deliversAutomatically = false
        let gone = try await SignalCenter.start(component: "app", store: dying, registry: registry, options: manual)
        try await gone.register(Handler(id: "Greeting.received", registry: registry), for: "greeting")
        #expect(try await gone.post("greeting").deliveries == 1)

        let surviving = try JSONFileSignalStore(folder: folder.path)
        let alive = try await surviving.runRecords()
        #expect(alive.map(\.runID) == [gone.runID] && alive.allSatisfy(\.isAlive), "\(alive)")
        let early = try await surviving.takeOverDeadRuns(of: "app", by: "another run", retry: manual.retry)
        #expect(early.deadRuns.isEmpty, "a run whose lock is held is alive")

        dying.abandonRuns()  // As if its process died: its run's lock is released, its record stays.
        #expect(try await surviving.runRecords().map(\.isAlive) == [false])
        let taker = try await SignalCenter.start(component: "app", store: surviving, registry: registry)
        #expect(taker.takeover.deadRuns == [gone.runID])
        #expect(taker.takeover.adoptedConsumers == 1)
        try await TestWait.until("the gone run's delivery delivered by the taker", seen: { "\(received.all)" }) {
            received.all.count == 1
        }
        #expect(try await surviving.runRecords().map(\.runID) == [taker.runID])
        try await taker.stop()
    }
}
