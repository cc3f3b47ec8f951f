import Foundation
import HandlerKit
import HandlerKitEvents
import Testing

@Suite struct ArchiveTests {
    /// An event with four handler subscriptions (plain, one-time, locked, background) and a closure.
    func populatedEvent(
        _ key: String, _ registry: HandlerRegistry, _ recorder: Recorder
    ) throws -> Event<Player.Type, String> {
        let event = makeEvent("started", key: key)
        try event.subscribe(Handler(id: "Log.record", bound: ["label": "plain"], registry: registry))
        event.subscribe(named: "closure") { sent in recorder.record("closure \(sent.data)") }
        try event.subscribe(Handler(id: "Log.record", bound: ["label": "once"], registry: registry), once: true)
        try event.subscribe(Handler(id: "Log.record", bound: ["label": "locked"], registry: registry)).lock()
        try event.subscribe(Handler(id: "Log.slow", bound: ["label": "bg"], registry: registry), inBackground: true)
        return event
    }

    /// An archive of `events` (it holds them weakly: the caller keeps them).
    func archive(_ events: Event<Player.Type, String>..., registry: HandlerRegistry) throws -> SubscriptionArchive {
        let archive = SubscriptionArchive(registry: registry)
        for event in events { try archive.add(event) }
        return archive
    }

    @Test func restoringKeepsOrderOneTimeBackgroundAndLockState() async throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let key = "Player.started"
        let original = try populatedEvent(key, registry, recorder)
        let saved = try archive(original, registry: registry).save()

        let restored = makeEvent("started", key: key)
        let report = try archive(restored, registry: registry).restore(from: saved)

        #expect(report.restored == 4 && report.problems.isEmpty)
        let subscriptions = restored.subscriptions
        #expect(
            subscriptions.map { $0.handler?.boundValues["label"] } == [
                .string("plain"), .string("once"), .string("locked"), .string("bg"),
            ])
        #expect(subscriptions.map(\.isOneTime) == [false, true, false, false])
        #expect(subscriptions.map(\.isLocked) == [false, false, true, false])
        #expect(subscriptions.map(\.isBackground) == [false, false, false, true])
        // Saving again writes the same bytes: the document is deterministic.
        #expect(try archive(restored, registry: registry).save() == saved)

        _ = await restored.sendAndWait("a")
        _ = await restored.sendAndWait("b")
        #expect(recorder.all == ["plain:a@started", "once:a@started", "slow bg:a", "plain:b@started", "slow bg:b"])
        let text = String(decoding: saved, as: UTF8.self)
        #expect(text.contains(#""format": "HandlerKitEvents.subscriptions""#) && text.contains(#""id": "Log.slow""#))
        #expect(!text.contains("closure"))
    }

    /// The saved document as a value, to edit it as a later run might find it.
    func document(_ data: Data) throws -> [String: HandlerValue] {
        guard case .object(let members) = try HandlerValue(json: data) else { throw Failure(code: 0) }
        return members
    }

    func subscriptions(_ members: [String: HandlerValue], _ key: String) -> [HandlerValue] {
        guard case .object(let events)? = members["events"], case .array(let entries)? = events[key] else { return [] }
        return entries
    }

    func replacing(
        _ members: [String: HandlerValue], _ key: String, with entries: [HandlerValue],
        extra: [String: HandlerValue] = [:]
    ) -> Data {
        var copy = members
        guard case .object(var events)? = members["events"] else { return Data() }
        events[key] = .array(entries)
        events.merge(extra) { _, new in new }
        copy["events"] = .object(events)
        return HandlerValue.object(copy).jsonData(prettyPrinted: true) + Data("\n".utf8)
    }

    @Test func subscriptionsThatCannotBeRestoredStayDormantAndAreSavedAgainVerbatim() async throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let key = "Player.started"
        let original = try populatedEvent(key, registry, recorder)
        let members = try document(archive(original, registry: registry).save())
        var entries = subscriptions(members, key)
        let valid = entries[0]
        func changed(_ entry: HandlerValue, _ change: (inout [String: HandlerValue]) -> Void) -> HandlerValue {
            guard case .object(var object) = entry else { return entry }
            change(&object)
            return .object(object)
        }
        let goneHandler = changed(valid) {
            $0["handler"] = .object(["bound": .object([:]), "id": .string("Gone.handler"), "version": .number("1")])
        }
        let wrongBoundType = changed(valid) {
            $0["handler"] = .object([
                "bound": .object(["label": .number("5")]), "id": .string("Log.record"), "version": .number("1"),
            ])
        }
        let badFlag = changed(valid) { $0["locked"] = .string("yes") }
        let notAnObject = HandlerValue.array([.number("1")])
        entries.insert(goneHandler, at: 1)
        entries.append(contentsOf: [wrongBoundType, badFlag, notAnObject])
        let otherEvent: HandlerValue = .array([valid])
        let edited = replacing(members, key, with: entries, extra: ["Elsewhere.unknown": otherEvent])

        let restored = makeEvent("started", key: key)
        let archive = try archive(restored, registry: registry)
        let report = try archive.restore(from: edited)

        #expect(report.restored == 4)
        #expect(report.problems.count == 5)
        #expect(report.problems.contains(.unknownEvent(key: "Elsewhere.unknown", path: "events.Elsewhere.unknown")))
        let reasons = report.problems.map(\.description)
        #expect(
            reasons.contains {
                $0.contains("events.Player.started[1].handler") && $0.contains("unknown handler id 'Gone.handler'")
            })
        #expect(
            reasons.contains {
                $0.contains("events.Player.started[5].handler")
                    && $0.contains("argument 'label' expects String but found number 5")
            })
        #expect(reasons.contains { $0.contains("events.Player.started[6].locked") && $0.contains("expected a bool") })
        #expect(reasons.contains { $0.contains("events.Player.started[7]") && $0.contains("expected an object") })
        #expect(restored.dormantSubscriptions.count == 4)
        #expect(restored.subscriptions[1].isDormant)

        // Dormant subscriptions are never delivered to, and locking them changes nothing saved.
        restored.lock(restored.dormantSubscriptions)
        #expect(restored.dormantSubscriptions.allSatisfy { !$0.isLocked })
        _ = await restored.sendAndWait("x")
        #expect(recorder.all == ["plain:x@started", "once:x@started", "slow bg:x"])

        // Saving again loses nothing: the dormant entries and the unknown event come back as they were
        // (the one-time subscriber has been delivered to, so it is gone).
        let expected = replacing(
            members, key, with: entries.enumerated().filter { $0.offset != 2 }.map(\.element),
            extra: ["Elsewhere.unknown": otherEvent])
        #expect(String(decoding: archive.save(), as: UTF8.self) == String(decoding: expected, as: UTF8.self))
    }

    @Test func aDocumentThatCannotBeReadIsATypedErrorAndChangesNothing() throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let key = "Player.started"
        let original = try populatedEvent(key, registry, recorder)
        let good = try archive(original, registry: registry).save()
        let event = makeEvent("started", key: key)
        event.subscribe(named: "existing") { _ in }
        let archive = try archive(event, registry: registry)

        func failure(_ bytes: some Collection<UInt8>) -> EventError? {
            do {
                try archive.restore(from: bytes)
                return nil
            } catch {
                return error
            }
        }
        // Truncated: cut in the middle of the document.
        guard case .malformedDocument(let truncated)? = failure(good.prefix(good.count / 2)) else {
            Issue.record("a truncated document was not a malformed-document error")
            return
        }
        #expect(truncated.description.contains("line"))
        guard case .malformedDocument(let malformed)? = failure(Data("{\"events\": {,}}".utf8)) else {
            Issue.record("malformed JSON was not a malformed-document error")
            return
        }
        #expect(
            malformed
                == .malformedJSON(
                    reason: "expected a string (a member name), found ','", line: 1, column: 13, offset: 12)
                || malformed.description.contains("column 13"))
        let newer = String(decoding: good, as: UTF8.self).replacingOccurrences(
            of: "\"version\": 1\n}", with: "\"version\": 2\n}")
        #expect(failure(Data(newer.utf8)) == .unsupportedVersion(found: "2", supported: 1))
        #expect(
            failure(Data("[]".utf8))
                == .invalidDocument(path: "$", reason: "expected an object, found array of 0 elements"))
        #expect(
            failure(Data(#"{"events":{},"format":"Other","version":1}"#.utf8))
                == .invalidDocument(
                    path: "format", reason: "expected \"HandlerKitEvents.subscriptions\", found string \"Other\""))
        #expect(
            failure(Data(#"{"events":[],"format":"HandlerKitEvents.subscriptions","version":1}"#.utf8))
                == .invalidDocument(path: "events", reason: "expected an object, found array of 0 elements"))
        #expect(
            failure(Data(#"{"events":{},"extra":1,"format":"HandlerKitEvents.subscriptions","version":1}"#.utf8))
                == .invalidDocument(
                    path: "extra", reason: "unknown member; a subscriptions document has events, format, version"))
        #expect(failure(Data()) != nil)
        // Nothing was restored by any of them.
        #expect(event.subscriptions.map(\.name) == ["existing"])
        #expect(try archive.restore(from: good).restored == 4)
    }

    @Test func theFileStoreKeepsAnUnreadableFileAside() throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        let folder = FileManager.default.temporaryDirectory.appending(path: "events-archive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "subscriptions.json")

        let target = makeEvent(key: "K")
        let missing = try archive(target, registry: registry).restore(from: file)
        #expect(missing.restored == 0 && missing.problems.isEmpty)

        let original = try populatedEvent("K", registry, recorder)
        try archive(original, registry: registry).save(to: file)
        #expect(try archive(target, registry: registry).restore(from: file).restored == 4)

        let damaged = Data(try Data(contentsOf: file).dropLast(40))
        try damaged.write(to: file)
        #expect(throws: EventError.self) { try archive(target, registry: registry).restore(from: file) }
        #expect(try Data(contentsOf: file) == damaged)
        #expect(try Data(contentsOf: file.appendingPathExtension("unreadable")) == damaged)

        #expect(throws: EventError.self) {
            try archive(makeEvent(key: "K"), registry: registry).save(
                to: folder.appending(path: "no/such/folder/x.json"))
        }
    }

    @Test func instanceEventsArePersistableOnlyWithAnIdentityAndKeysAreUnique() throws {
        let registry = try makeRegistry(Recorder())
        let archive = SubscriptionArchive(registry: registry)
        #expect(throws: EventError.notPersistable(event: "progress")) { try archive.add(Download().progress) }
        let download = Download(identity: "dl-1")
        #expect(download.progress.persistenceKey == "HandlerKitEventsTests.Download[dl-1].progress")
        try archive.add(download.progress)
        #expect(throws: EventError.duplicateEvent(key: "HandlerKitEventsTests.Download[dl-1].progress")) {
            try archive.add(download.progress)
        }
        #expect(Event<Player.Type, Int>("tick").persistenceKey == "HandlerKitEventsTests.Player.tick")

        // Saved from one object, restored into another with the same identity.
        try download.progress.subscribe(Handler(id: "Log.any", registry: registry))
        let saved = archive.save()
        let again = Download(identity: "dl-1")
        let other = SubscriptionArchive(registry: registry)
        try other.add(again.progress)
        #expect(try other.restore(from: saved).restored == 1)
        #expect(again.progress.subscriptions.first?.handler?.id == "Log.any")
    }

    /// An archive embeds handler documents four levels down, so it reads them at their own full depth:
    /// a handler whose bound value nests as deep as a handler document allows is saved and restored.
    @Test func handlersWithValuesAsDeepAsADocumentAllowsAreRestored() async throws {
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        // A bound value sits two levels into its document (the document and `bound`).
        var shape = HandlerValue.number("0")
        for _ in 0..<(DecodingLimits.default.maximumDepth - 2) { shape = .array([shape]) }
        let key = "Player.shaped"
        let event = makeEvent(key: key)
        try event.subscribe(Handler(id: "Log.shape", bound: ["shape": shape], registry: registry))
        let saved = try archive(event, registry: registry).save()

        let restored = makeEvent(key: key)
        let report = try archive(restored, registry: registry).restore(from: saved)
        #expect(report.restored == 1 && report.problems.isEmpty, "\(report)")
        _ = await restored.sendAndWait("a")
        #expect(recorder.all == ["shape:a"])
    }
}
