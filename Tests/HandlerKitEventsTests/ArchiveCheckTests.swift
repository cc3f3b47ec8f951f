import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
import HandlerKitEvents
import Testing

/// `SubscriptionArchive.check`: what restoring a saved document would report under a build's
/// registry, with nothing restored.
@Suite struct ArchiveCheckTests {
    func savedDocument() throws -> Data {
        let registry = try makeRegistry(Recorder())
        let event = makeEvent("started", key: "Player.started")
        try event.subscribe(Handler(id: "Log.record", bound: ["label": "v1"], registry: registry))
        let archive = SubscriptionArchive(registry: registry)
        try archive.add(event)
        return archive.save()
    }

    @Test func aDocumentThatStillRestoresHasNoProblemsAndNothingIsRestored() async throws {
        let recorder = Recorder()
        let event = makeEvent("started", key: "Player.started")
        let archive = SubscriptionArchive(registry: try makeRegistry(recorder))
        try archive.add(event)
        let report = try archive.check(try savedDocument())
        #expect(report.restored == 1 && report.problems.isEmpty, "\(report)")
        #expect(await event.sendAndWait("hello").isEmpty)
        #expect(recorder.all.isEmpty, "the check subscribed nothing")
        #expect(!String(decoding: archive.save(), as: UTF8.self).contains("Log.record"), "nor kept anything to save")
    }

    @Test func aHandlerThatNoLongerRebuildsIsReportedWithTheReasonUsersGet() throws {
        let document = try savedDocument()
        // The archive holds its events weakly: they live as long as the test.
        let event = makeEvent("started", key: "Player.started")
        let checked = SubscriptionArchive(registry: HandlerRegistry())
        try checked.add(event)
        let report = try checked.check(document)

        let restoredEvent = makeEvent("started", key: "Player.started")
        let restoring = SubscriptionArchive(registry: HandlerRegistry())
        try restoring.add(restoredEvent)
        let restored = try restoring.restore(from: document)
        #expect(report.problems == restored.problems)
        #expect(report.problems.count == 1 && report.restored == 0)
        #expect("\(report)".contains("events.Player.started[0].handler"), "\(report)")

        let unknown = try SubscriptionArchive(registry: try makeRegistry(Recorder())).check(document)
        #expect(unknown.problems == [.unknownEvent(key: "Player.started", path: "events.Player.started")])
        #expect(throws: EventError.self) { try checked.check(Data("{".utf8)) }
    }
}
