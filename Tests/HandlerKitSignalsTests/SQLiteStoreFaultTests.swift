import Foundation
import GRDB
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// The SQLite store under faults: newer schema, damaged files, long locks, a full store and
/// malformed records. Each is a typed error naming what and where, and nothing valid is lost.
@Suite("Signals: SQLite store faults")
struct SQLiteStoreFaultTests {
    let folder = TemporaryFolder()
    let recorder = Recorder()
    let registry: HandlerRegistry
    var path: String { folder.path + "/signals.sqlite" }

    init() throws { registry = try makeRegistry(recorder) }

    @Test func aStoreOfANewerSchemaIsRefusedAndLeftUnchanged() async throws {
        _ = try SQLiteSignalStore(path: path)
        try await DatabaseQueue(path: path).write { db in try db.execute(sql: "PRAGMA user_version = 99") }
        #expect(throws: SignalError.newerSchema(path: path, found: 99, supported: 9)) {
            try SQLiteSignalStore(path: path)
        }
        let version = try await DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "PRAGMA user_version")
        }
        #expect(version == 99)
        #expect(
            SignalError.newerSchema(path: path, found: 99, supported: 1).description
                == "signal store \(path) has schema version 99, newer than this HandlerKitSignals reads (up to 1); it was left unchanged"
        )
    }

    /// An app's own database (a `photos` table) is refused, whatever its `user_version`, and left
    /// byte for byte as it was: no tables added, not switched to WAL.
    @Test(arguments: [0, 3])
    func anAppDatabaseIsRefusedUntouched(userVersion: Int) async throws {
        let app = try DatabaseQueue(path: path)
        try await app.write { db in
            try db.execute(
                sql:
                    "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos (name) VALUES ('a.jpg')"
            )
            try db.execute(sql: "PRAGMA user_version = \(userVersion)")
        }
        try app.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let found =
            "an SQLite database with table 'photos', application id 0 (a signal store's is 1212896103) and user_version \(userVersion)"
        let error = #expect(throws: SignalError.self) { try SQLiteSignalStore(path: path) }
        #expect(error == .notASignalStore(path: path, found: found))
        #expect(
            error?.description
                == "\(path) is not a signal store, so it was left unchanged: it is \(found); give the signal store a file (or schema) of its own"
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aDatabaseOfAnotherApplicationIsRefused() async throws {
        try await DatabaseQueue(path: path).write { db in try db.execute(sql: "PRAGMA application_id = 42") }
        #expect(
            throws: SignalError.notASignalStore(
                path: path,
                found:
                    "an SQLite database with no tables, application id 42 (a signal store's is 1212896103) and user_version 0"
            )
        ) {
            try SQLiteSignalStore(path: path)
        }
    }

    /// A new store is marked with the signal store's application id; a store made before stores were
    /// marked (its tables at version 1, application id 0) is opened and marked.
    @Test func aStoreIsMarkedAndAnUnmarkedOneIsRecognisedByItsTables() async throws {
        _ = try SQLiteSignalStore(path: path)
        func applicationID() async throws -> Int? {
            try await DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "PRAGMA application_id") }
        }
        #expect(try await applicationID() == 1_212_896_103)
        try await DatabaseQueue(path: path).write { db in try db.execute(sql: "PRAGMA application_id = 0") }
        let reopened = try SQLiteSignalStore(path: path)
        #expect(try await reopened.statistics() == SignalStoreStatistics())
        #expect(try await applicationID() == 1_212_896_103)
    }

    @Test func aFileThatIsNotADatabaseIsATypedError() throws {
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: SignalError.self) { try SQLiteSignalStore(path: path) }
        guard case .storeCorrupt(let where_, let operation, _)? = error else {
            Issue.record("expected storeCorrupt, got \(String(describing: error))")
            return
        }
        #expect(where_ == path && operation == "opening the store")
        #expect(
            error?.description.hasPrefix(
                "signal store \(path) is damaged or not a signal store (during opening the store)") == true)
    }

    @Test func aTruncatedStoreIsATypedError() async throws {
        try await fillAndClose()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count / 3).write(to: URL(fileURLWithPath: path))
        do {
            let reopened = try SQLiteSignalStore(path: path)
            _ = try await reopened.consumers(of: nil)
            Issue.record("a store cut to a third of its pages was read without an error")
        } catch {
            guard case .storeCorrupt(let where_, _, _) = error else {
                Issue.record("expected storeCorrupt, got \(error)")
                return
            }
            #expect(where_ == path)
        }
    }

    /// Registers 200 consumers and closes the store, which moves everything into the database file.
    private func fillAndClose() async throws {
        let store = try SQLiteSignalStore(path: path)
        let center = try await manualCenter("app", store: store, registry: registry)
        for index in 0..<200 {
            _ = try await center.register(
                try Handler(
                    id: "Sink.receive", bound: ["note": String(repeating: "n", count: 500)],
                    registry: registry), for: SignalID("t\(index)"))
        }
        try await center.stop()
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func aStoreLockedLongerThanTheBusyTimeoutFailsThePostWithoutWritingIt() async throws {
        let store = try SQLiteSignalStore(path: path, options: .init(busyTimeout: .milliseconds(300)))
        let center = try await manualCenter("app", store: store, registry: registry)
        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "busy")

        var unsafe = Configuration()
        unsafe.allowsUnsafeTransactions = true
        let blocker = try DatabaseQueue(path: path, configuration: unsafe)
        try await blocker.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        let started = ContinuousClock.now
        let error = await #expect(throws: SignalError.self) { try await center.post("busy", payload: ["item": 1]) }
        let elapsed = (ContinuousClock.now - started).seconds
        guard case .storeBusy(let where_, let operation, let waited)? = error else {
            Issue.record("expected storeBusy, got \(String(describing: error))")
            return
        }
        #expect(where_ == path && operation == "posting signal 'busy'")
        #expect(waited >= 0.3 && waited <= elapsed + 0.001, "the time waited, measured: \(waited) s of \(elapsed) s")
        try await blocker.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }

        let result = try await center.post("busy", payload: ["item": 2])
        #expect(result.revision == 1, "the failed post left no revision behind")
        #expect(try await center.deliverDue() == 1)
        #expect(recorder.all.map(\.item) == [2])
        try await center.stop()
    }

    @Test func aFullStoreRefusesThePostAndKeepsWhatItHas() async throws {
        let store = try SQLiteSignalStore(path: path, options: .init(maximumSize: 256 * 1024))
        let center = try await manualCenter("app", store: store, registry: registry)
        for index in 0..<40 {
            _ = try await center.register(
                try Handler(id: "Sink.receive", registry: registry), for: SignalID("f\(index)"))
        }
        var posted = 0
        var failure: SignalError?
        do {
            for index in 0..<40 {
                _ = try await center.post(
                    SignalID("f\(index)"), payload: ["item": index, "note": String(repeating: "x", count: 20_000)])
                posted += 1
            }
        } catch {
            failure = error
        }
        #expect(failure == .storeFull(path: path, operation: "posting signal 'f\(posted)'"))
        #expect(posted > 0 && posted < 40)
        #expect(try await center.deliverDue() == posted, "every post that succeeded is delivered, in the space it had")
        #expect(Set(recorder.all.compactMap(\.item)) == Set(0..<posted))
        try await center.stop()
    }

    @Test func malformedRecordsAreParkedDeadWithTableKeyAndColumnAndTheOthersAreDelivered() async throws {
        let store = try SQLiteSignalStore(path: path)
        let center = try await manualCenter("app", store: store, registry: registry)
        for name in ["good", "truncated", "garbage", "array"] {
            _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: SignalID(name))
            _ = try await center.post(SignalID(name), payload: ["item": 1])
        }
        let raw = try DatabaseQueue(path: path)
        try await raw.write { db in
            func body(_ signal: String) -> String {
                "WHERE delivery_id = (SELECT id FROM deliveries WHERE signal_id = '\(signal)')"
            }
            try db.execute(sql: "UPDATE delivery_bodies SET payload = CAST('{\"item\":1' AS BLOB) \(body("truncated"))")
            try db.execute(sql: "UPDATE delivery_bodies SET handler = CAST('not a handler' AS BLOB) \(body("garbage"))")
            try db.execute(sql: "UPDATE delivery_bodies SET payload = CAST('[1]' AS BLOB) \(body("array"))")
        }
        #expect(try await center.deliverDue() == 1)
        #expect(recorder.all.count == 1)
        let dead = Dictionary(uniqueKeysWithValues: try await center.deadDeliveries().map { ($0.signalID, $0) })
        #expect(dead.keys.sorted() == ["array", "garbage", "truncated"])
        let truncated = try #require(dead["truncated"])
        #expect(
            truncated.reason.hasPrefix(
                "malformed record in table 'deliveries', key '\(truncated.key)', column 'payload': malformed JSON at line 1, column 10"
            ))
        #expect(
            dead["garbage"]?.reason.contains(
                "column 'handler': the consumer's handler cannot be rebuilt in this process: malformed JSON") == true)
        #expect(
            dead["array"]?.reason.hasSuffix("column 'payload': expected a JSON object, found array of 1 elements")
                == true)
        try await center.stop()
    }

    /// A delivery whose stored state is none the core knows (written behind the store's back) counts
    /// as dead in the statistics, as a delivery no run claims.
    @Test func aDeliveryOfAnUnknownStateCountsAsDeadInTheStatistics() async throws {
        let store = try SQLiteSignalStore(path: path)
        let center = try await manualCenter("app", store: store, registry: registry)
        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "s")
        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "t")
        _ = try await center.post("s", payload: ["item": 1])
        _ = try await center.post("t", payload: ["item": 2])
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE deliveries SET state = 'lost' WHERE signal_id = 's'")
        }
        let statistics = try await store.statistics()
        #expect(statistics.pendingDeliveries == 1 && statistics.deadDeliveries == 1 && statistics.consumers == 2)
        try await center.stop()
    }

    @Test func aRecordWithAColumnOfTheWrongTypeIsParkedWhenClaimed() async throws {
        let store = try SQLiteSignalStore(path: path)
        let center = try await manualCenter("app", store: store, registry: registry)
        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "typed")
        _ = try await center.post("typed", payload: ["item": 1])
        try await DatabaseQueue(path: path).write { db in
            try db.execute(sql: "UPDATE deliveries SET revision = 'one' WHERE signal_id = 'typed'")
        }
        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "fine")
        _ = try await center.post("fine", payload: ["item": 2])
        #expect(try await center.deliverDue() == 1)
        #expect(recorder.all.map(\.item) == [2])
        let dead = try #require(try await center.deadDeliveries().first)
        #expect(dead.signalID == "typed" && dead.revision == 0)
        #expect(
            dead.reason.contains(
                "malformed record in table 'deliveries', key '\(dead.key)', column 'revision': expected Int, found"))
        try await center.stop()
    }

    @Test(
        .enabled(
            if: ReadOnlyFile.isPossible, "needs a user other than root, or chattr to make a file immutable for root"))
    func aReadOnlyStoreIsATypedError() async throws {
        let store = try SQLiteSignalStore(path: path)
        let center = try await manualCenter("app", store: store, registry: registry)
        try await center.stop()
        try ReadOnlyFile.make(path)
        defer { ReadOnlyFile.undo(path) }
        // SQLite opens a file it cannot write read-only; the first write says so.
        let error = await #expect(throws: SignalError.self) {
            _ = try await manualCenter("app", store: try SQLiteSignalStore(path: path), registry: registry)
        }
        guard case .storeReadOnly(let where_, let operation)? = error else {
            Issue.record("expected storeReadOnly, got \(String(describing: error))")
            return
        }
        #expect(where_ == path && operation.hasPrefix("starting run "))
        #expect(error?.description.hasPrefix("signal store \(path) is read-only (starting run ") == true)
    }
}

/// Making a file read-only even for root (who may write files without write permission): `chattr +i`.
enum ReadOnlyFile {
    static let isPossible: Bool = {
        if getuid() != 0 { return true }
        let probe = FileManager.default.temporaryDirectory.appending(path: "handlerkit-immutable-\(UUID().uuidString)")
            .path(percentEncoded: false)
        guard FileManager.default.createFile(atPath: probe, contents: nil) else { return false }
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard (try? make(probe)) != nil else { return false }
        undo(probe)
        return true
    }()

    static func make(_ path: String) throws {
        if getuid() != 0 {
            chmod(path, 0o444)
            chmod((path as NSString).deletingLastPathComponent, 0o555)
            return
        }
        try run("/usr/bin/env", ["chattr", "+i", path])
    }

    static func undo(_ path: String) {
        if getuid() != 0 {
            chmod((path as NSString).deletingLastPathComponent, 0o755)
            chmod(path, 0o644)
            return
        }
        try? run("/usr/bin/env", ["chattr", "-i", path])
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteNoPermission) }
    }
}
