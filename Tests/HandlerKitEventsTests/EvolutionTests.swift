import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
import HandlerKitEvents
import Testing

/// Saved subscriptions outlive the build that wrote them: a handler renamed with former names (its id
/// and a parameter) still restores, runs with its bound value, and is saved again under its current names.
@Suite struct SubscriptionEvolutionTests {
    /// The registry of a later app version: `Log.record` became `Journal.note`, its `label` became `tag`.
    func renamedRegistry(_ recorder: Recorder) throws -> HandlerRegistry {
        let registry = HandlerRegistry()
        try registry.register(
            HandlerTable(
                module: "EventFixturesV2",
                handlers: [
                    HandlerDescriptor(
                        id: "Journal.note", formerIDs: ["Log.record"],
                        parameters: [
                            .required("tag", String.self, formerly: ["label"]), .required("data", String.self),
                        ],
                        invoke: { arguments in
                            let tag: String = try arguments.required("tag")
                            let data: String = try arguments.required("data")
                            recorder.record("\(tag):\(data)")
                        }
                    )
                ]))
        return registry
    }

    @Test func aSubscriptionSavedUnderFormerNamesRestoresRunsAndIsSavedUnderCurrentNames() async throws {
        let key = "Player.started"
        let oldRecorder = Recorder()
        let oldRegistry = try makeRegistry(oldRecorder)
        let original = makeEvent("started", key: key)
        try original.subscribe(Handler(id: "Log.record", bound: ["label": "v1"], registry: oldRegistry))
        let oldArchive = SubscriptionArchive(registry: oldRegistry)
        try oldArchive.add(original)
        let saved = oldArchive.save()

        let recorder = Recorder()
        let registry = try renamedRegistry(recorder)
        let restored = makeEvent("started", key: key)
        let archive = SubscriptionArchive(registry: registry)
        try archive.add(restored)
        let report = try archive.restore(from: saved)
        #expect(report.restored == 1 && report.problems.isEmpty, "\(report.problems)")

        let failures = await restored.sendAndWait("hello")
        #expect(failures.isEmpty)
        #expect(recorder.all == ["v1:hello"])

        let resaved = String(decoding: archive.save(), as: UTF8.self)
        #expect(resaved.contains(#""id": "Journal.note""#) && !resaved.contains("Log.record"), "\(resaved)")
    }

    @Test func aSubscriptionWhoseHandlerIsGoneStaysDormantAndIsSavedAgain() throws {
        let key = "Player.started"
        let oldRegistry = try makeRegistry(Recorder())
        let original = makeEvent("started", key: key)
        try original.subscribe(Handler(id: "Log.inspect", bound: [:], registry: oldRegistry))
        let oldArchive = SubscriptionArchive(registry: oldRegistry)
        try oldArchive.add(original)
        let saved = oldArchive.save()

        // The later version has no `Log.inspect` and no former id for it.
        let registry = try renamedRegistry(Recorder())
        let restored = makeEvent("started", key: key)
        let archive = SubscriptionArchive(registry: registry)
        try archive.add(restored)
        let report = try archive.restore(from: saved)
        #expect(report.restored == 0 && report.problems.count == 1)
        #expect(archive.save() == saved)
    }
}
