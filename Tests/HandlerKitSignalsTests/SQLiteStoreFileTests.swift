import Foundation
import GRDB
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import Logging
import SignalsTestSupport
import TestWaiting
import Testing

/// The files of an SQLite store damaged, deleted or made read-only under the processes that use it,
/// and processes opening a new store at once: each is a typed error naming the file (or is repaired,
/// logged), no process crashes, and nothing is made over a store that existed.
@Suite("Signals: SQLite store files")
struct SQLiteStoreFileTests {
    let folder = TemporaryFolder()
    var path: String { folder.path + "/signals.sqlite" }
    var log: String { folder.path + "/handlers.log" }

    func probe(_ arguments: [String]) async throws -> Probe.Outcome {
        try await Probe.run(arguments + ["--db", path], folder: folder.path)
    }

    /// 300 once consumers registered and 300 signals posted by probe processes: 300 open deliveries,
    /// all in the database file.
    func fillWithProbes() async throws {
        let registered = try await probe([
            "register", "--component", "app", "--log", log, "--signals", "300", "--stop",
        ])
        #expect(registered.status == 0, "\(registered.output)")
        let posted = try await probe(["post", "--component", "sync", "--signals", "300"])
        #expect(posted.status == 0, "\(posted.output)")
        try checkpoint(path)
    }

    func openDeliveries() async throws -> String {
        let opened = try await probe(["open"])
        return opened.status == 0 ? opened.output.trimmingCharacters(in: .whitespacesAndNewlines) : opened.output
    }

    // MARK: A store that was emptied, deleted or cut short

    @Test func anEmptiedOrDeletedStoreIsRefusedAndNoEmptyStoreIsMadeOverIt() async throws {
        try await fillWithProbes()
        #expect(try await openDeliveries() == "open 300")
        let backup = folder.path + "/backup.sqlite"
        try FileManager.default.copyItem(atPath: path, toPath: backup)
        let marker = path + ".marker"
        #expect(FileManager.default.fileExists(atPath: marker))

        try Data().write(to: URL(fileURLWithPath: path))
        let refused = try await probe(["open"])
        #expect(refused.status == 1)
        #expect(
            refused.output.contains(
                "signal store \(path) is empty (0 bytes), but \(marker) shows that a store with data was made there"),
            "\(refused.output)")
        let emptied = #expect(throws: SignalError.self) { try SQLiteSignalStore(path: path) }
        #expect(emptied == .storeLost(path: path, found: "empty (0 bytes)", marker: marker))
        #expect(StoreFile.size(path) == 0, "nothing was written over the emptied file")
        #expect(StoreFile.size(path + "-wal") ?? 0 == 0)

        try FileManager.default.removeItem(atPath: path)
        let deleted = #expect(throws: SignalError.self) { try SQLiteSignalStore(path: path) }
        #expect(deleted == .storeLost(path: path, found: "missing", marker: marker))
        #expect(
            deleted?.description
                == "signal store \(path) is missing, but \(marker) shows that a store with data was made there: its data is gone (the file was truncated, replaced or deleted), so no empty store was created over it; restore the store's files from a backup, or delete \(marker) to start a new, empty store"
        )
        #expect(!FileManager.default.fileExists(atPath: path))

        try FileManager.default.copyItem(atPath: backup, toPath: path)
        let kept = try await openDeliveries()
        #expect(kept == "open 300")
        print(
            "sqlite.files: emptied and deleted store refused, nothing made over it, deliveries kept \(kept.dropFirst(5))/300"
        )
    }

    @Test func aNewStoreIsMadeAndMarkedAndAStoreWithoutAMarkerGetsOne() async throws {
        let marker = path + ".marker"
        try Data().write(to: URL(fileURLWithPath: path))
        _ = try SQLiteSignalStore(path: path)
        #expect(FileManager.default.fileExists(atPath: marker), "an empty file without a marker is a new store")
        try FileManager.default.removeItem(atPath: marker)
        let reopened = try SQLiteSignalStore(path: path)
        #expect(try await reopened.statistics() == SignalStoreStatistics())
        #expect(FileManager.default.fileExists(atPath: marker), "a store made without a marker is marked when opened")
        try FileManager.default.removeItem(atPath: marker)
        try FileManager.default.removeItem(atPath: path)
        _ = try SQLiteSignalStore(path: path)
        #expect(FileManager.default.fileExists(atPath: path), "deleting the marker with the file starts a new store")
    }

    /// Copies every commit of the `-wal` file into the database file and empties the `-wal` file
    /// (a probe that exits before its store closes leaves its commits there).
    func checkpoint(_ path: String) throws {
        try DatabaseQueue(path: path).writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        #expect(StoreFile.size(path + "-wal") ?? 0 == 0)
    }

    @Test func aStoreCutShortIsRefusedAsCorruptNamingTheFile() async throws {
        try await fillWithProbes()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.count >= 40 * 4096)
        let cuts: [(Int, String)] = [
            (50, "the file is 50 bytes, shorter than the 100-byte header of an SQLite database"),
            (10_000, "the file is 10000 bytes, not a whole number of its 4096-byte pages"),
            (
                bytes.count / 8192 * 4096,
                "pages are missing: its header counts \(bytes.count / 4096) pages of 4096 bytes (\(bytes.count) bytes), the file holds \(bytes.count / 8192 * 4096) bytes"
            ),
        ]
        for (size, detail) in cuts {
            try bytes.prefix(size).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: SignalError.self) { try SQLiteSignalStore(path: path) }
            #expect(
                error
                    == .storeCorrupt(
                        path: path, operation: "opening the store",
                        detail: "\(detail): the file was cut; restore the store's files from a backup"))
            let refused = try await probe(["open"])
            #expect(
                refused.status == 1 && refused.output.contains("signal store \(path) is damaged"), "\(refused.output)")
            #expect(StoreFile.size(path) == size, "the cut file was left as it was")
        }
        try bytes.write(to: URL(fileURLWithPath: path))
        let kept = try await openDeliveries()
        #expect(kept == "open 300")
        print(
            "sqlite.files: cut store refused as corrupt (3 cuts), deliveries kept \(kept.dropFirst(5))/300 once restored"
        )
    }

    /// A copy of the store's files taken while a process had commits only in its `-wal` file (as a
    /// crash leaves them) opens with them; so does the copy of a checkpoint cut short, whose database
    /// file has its new first page (counting the pages the commits added) but not yet the pages
    /// after it. Refused, naming what is missing: the copy cut to one page, and the cut checkpoint
    /// beside a `-wal` file whose header or first frame does not check out (SQLite ignores such a
    /// file or its frames, so the missing pages are in neither file).
    @Test func aStoreCutShortBesideItsLogIsRefusedUnlessTheLogHoldsTheMissingPages() async throws {
        try await fillWithProbes()
        let store = try SQLiteSignalStore(path: path)
        let center = try await SignalCenter.start(
            component: "sync", store: store, options: .init(deliversAutomatically: false))
        // Kept signals with payloads of 20 KB: the commits add pages to the database.
        let text = String(repeating: "x", count: 20_000)
        for index in 0..<20 {
            _ = try await center.post(
                SignalID("kept\(index)"), payload: ["text": text], ifUnconsumed: .keep(for: .seconds(3_600)))
        }
        let expected = try await store.statistics()
        let databaseBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let logBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path + "-wal")))
        try await center.stop()
        #expect(logBytes.count > 32, "the posts are in the -wal file only")
        let copy = folder.path + "/copy.sqlite"
        func copyFiles(database: [UInt8], log: [UInt8] = logBytes) throws {
            for file in [copy, copy + "-wal", copy + "-shm", copy + ".marker"] where StoreFile.size(file) != nil {
                try FileManager.default.removeItem(atPath: file)
            }
            try Data(database).write(to: URL(fileURLWithPath: copy))
            try Data(log).write(to: URL(fileURLWithPath: copy + "-wal"))
        }
        func refusal(_ expectedDetail: String, _ comment: Comment) {
            let error = #expect(throws: SignalError.self, comment) { try SQLiteSignalStore(path: copy) }
            guard case .storeCorrupt(let file, let operation, let detail)? = error else { return }
            #expect(file == copy && operation == "opening the store", comment)
            #expect(detail.hasPrefix(expectedDetail), "\(comment): \(detail)")
            #expect(detail.hasSuffix("the file was cut; restore the store's files from a backup"), comment)
        }

        try copyFiles(database: databaseBytes)
        #expect(try await SQLiteSignalStore(path: copy).statistics() == expected)

        try copyFiles(database: Array(databaseBytes.prefix(4096)))
        refusal("pages are missing: its last commit, in \(copy)-wal, counts ", "cut to one page")
        #expect(StoreFile.size(copy) == 4096, "the cut file was left as it was")

        // The checkpoint cut short: the database file's first page as the last commit wrote it.
        let log = LogFrames(logBytes)
        let firstPage = try #require(log.lastCommittedFirstPage, "the commits wrote the first page")
        let checkpointCut = firstPage + databaseBytes.dropFirst(firstPage.count)
        let headerPages = checkpointCut[28..<32].reduce(0) { $0 << 8 | Int($1) }
        let pageSize = log.pageSize
        #expect(
            headerPages * pageSize > checkpointCut.count,
            "the first page counts more pages than the file holds: the -wal file is read for them")
        try copyFiles(database: checkpointCut)
        #expect(try await SQLiteSignalStore(path: copy).statistics() == expected, "the -wal file holds the pages")

        let missing =
            "pages are missing: its header counts \(headerPages) pages of \(pageSize) bytes (\(headerPages * pageSize) bytes), the file holds \(checkpointCut.count) bytes"
        var foreignSalt = logBytes
        foreignSalt[16] ^= 0xFF
        try copyFiles(database: checkpointCut, log: foreignSalt)
        refusal(missing, "a -wal file whose header checksum fails")
        var damagedFrame = logBytes
        damagedFrame[32 + 24 + 100] ^= 0xFF
        try copyFiles(database: checkpointCut, log: damagedFrame)
        refusal(missing, "a -wal file whose first frame's checksum fails")
        print(
            "sqlite.files: a -wal file of \(logBytes.count) bytes holding pages \(databaseBytes.count / pageSize + 1)...\(headerPages): a cut checkpoint opened, a cut file or a damaged -wal file refused"
        )
    }

    // MARK: A store made read-only while processes use it

    /// `chattr +i` on the database and its `-wal` (not the `-shm`) while a center is open: the next
    /// write fails with `storeReadOnly` naming the file, not "disk I/O error".
    @Test(.enabled(if: ReadOnlyFile.isPossible && getuid() == 0, "needs root and chattr"))
    func aStoreMadeImmutableWhileOpenIsReadOnlyNamingTheFile() async throws {
        let registry = try makeRegistry(Recorder())
        let store = try SQLiteSignalStore(path: path)
        let center = try await manualCenter("app", store: store, registry: registry)
        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "s")
        for index in 0..<2_000 { _ = try await center.post("s", payload: ["item": index]) }
        try ReadOnlyFile.make(path)
        try ReadOnlyFile.make(path + "-wal")
        defer {
            ReadOnlyFile.undo(path + "-wal")
            ReadOnlyFile.undo(path)
        }
        let error = await #expect(throws: SignalError.self) {
            for index in 0..<2_000 { _ = try await center.post("s", payload: ["item": index]) }
        }
        guard case .storeReadOnly(let file, let operation)? = error else {
            Issue.record("expected storeReadOnly, got \(String(describing: error))")
            return
        }
        #expect(file == path || file == path + "-wal")
        #expect(operation.hasPrefix("posting signal 's'"))
    }

    /// Two processes writing (registering consumers) while every file of their store is made
    /// immutable (`chattr +i`): each stops with `storeReadOnly` naming a file, and none is killed.
    /// Then `sync`. (A transaction already past the store's check when the file becomes immutable can
    /// still be killed if the pages are flushed before it ends; so the test flushes only once each
    /// writer has reported its error. Releasing a store after the flush is tested in one process.)
    @Test(.enabled(if: ReadOnlyFile.isPossible && getuid() == 0, "needs root and chattr"))
    func processesWhoseStoreIsMadeImmutableStopWithATypedErrorAndDoNotCrash() async throws {
        var stopped = 0
        var killed = 0
        let rounds = 4
        for round in 0..<rounds {
            let opened = try await probe(["open"])
            #expect(opened.status == 0, "\(opened.output)")
            let writers = try (0..<2).map { index in
                try Probe.start(
                    [
                        "register", "--component", "p\(index)", "--log", log, "--signals", "100000000",
                        "--prefix", "r\(round)p\(index)-", "--db", path,
                    ], output: folder.path + "/writer\(index).out")
            }
            // Both writers are registering consumers before the files become immutable.
            let read = { (index: Int) in
                (try? String(contentsOfFile: self.folder.path + "/writer\(index).out", encoding: .utf8)) ?? ""
            }
            await TestWait.expect(
                "both writers to register a consumer",
                seen: { "writer outputs \(read(0).suffix(300)) | \(read(1).suffix(300))" }
            ) { (0..<2).allSatisfy { read($0).contains("consumer ") || !writers[$0].isRunning } }
            let files = [path, path + "-wal", path + "-shm"]
            defer { for file in files { ReadOnlyFile.undo(file) } }
            for file in files { try ReadOnlyFile.make(file) }
            // A writer still running past the bound is ended; the checks below then say what it wrote.
            for (index, writer) in writers.enumerated() {
                await TestWait.expect(
                    "writer \(index) to report the read-only store", seen: { read(index).suffix(500).description }
                ) {
                    read(index).contains(" is read-only (") || !writer.isRunning
                }
            }
            sync()
            for (index, writer) in writers.enumerated() {
                await TestWait.expect("writer \(index) to stop", seen: { read(index).suffix(500).description }) {
                    !writer.isRunning
                }
                if writer.isRunning { writer.terminate() }
                await Probe.finish(writer)
            }
            for (index, writer) in writers.enumerated() {
                let output = (try? String(contentsOfFile: folder.path + "/writer\(index).out", encoding: .utf8)) ?? ""
                if writer.terminationReason == .uncaughtSignal {
                    killed += 1
                    Issue.record("writer \(index) of round \(round) died of signal \(writer.terminationStatus)")
                } else if writer.terminationStatus == 1, output.contains(" is read-only (registering consumer ") {
                    stopped += 1
                } else {
                    Issue.record("writer \(index) of round \(round): status \(writer.terminationStatus): \(output)")
                }
            }
        }
        #expect(stopped == rounds * 2 && killed == 0)
        print(
            "sqlite.files: store made immutable under 2 writing processes, \(rounds) rounds: \(stopped) stopped with storeReadOnly, \(killed) killed"
        )
    }

    /// A store whose `-shm` file is made immutable and then flushed (`sync`), after which any write to
    /// the file's memory mapping is a SIGBUS: the next call is `storeReadOnly` naming the file, and
    /// releasing the store leaves its connection open (closing it would write the mapping and kill
    /// this process).
    @Test(.enabled(if: ReadOnlyFile.isPossible && getuid() == 0, "needs root and chattr"))
    func aStoreWhoseSharedMemoryIsImmutableIsReleasedWithoutWritingIt() async throws {
        let registry = try makeRegistry(Recorder())
        weak var released: SQLiteSignalStore?
        do {
            let store = try SQLiteSignalStore(path: path)
            released = store
            let center = try await manualCenter("app", store: store, registry: registry)
            _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "s")
            _ = try await center.post("s", payload: ["item": 1])
            try ReadOnlyFile.make(path + "-shm")
            sync()
            let error = await #expect(throws: SignalError.self) { try await center.post("s", payload: ["item": 2]) }
            #expect(error == .storeReadOnly(path: path + "-shm", operation: "posting signal 's'"))
        }
        defer { ReadOnlyFile.undo(path + "-shm") }
        #expect(released == nil, "the store was released")
        sync()
    }

    // MARK: A -shm file cut short while open

    /// The `-shm` file truncated while a center has the store open (by hand, or by a tool that
    /// empties "temporary" files): any access to the mapped file past its new end would be SIGBUS.
    /// The next call gives the file its size back (logged once), SQLite rebuilds its index from the
    /// `-wal`, and nothing committed before or after is lost.
    @Test func aSharedMemoryFileCutWhileOpenIsGivenBackItsSizeAndNothingIsLost() async throws {
        let messages = LogMessages()
        let logger = Logger(label: "test") { _ in messages }
        let registry = try makeRegistry(Recorder())
        let store = try SQLiteSignalStore(path: path, options: .init(logger: logger))
        let center = try await manualCenter("app", store: store, registry: registry)
        _ = try await center.register(
            try Handler(id: "Sink.receive", registry: registry), for: "s", delivery: .everyRevision)
        for index in 0..<50 { _ = try await center.post("s", payload: ["item": index]) }
        let mapped = try #require(StoreFile.size(path + "-shm"))
        #expect(mapped >= 32_768)

        #expect(truncate(path + "-shm", 0) == 0)
        for index in 50..<100 { _ = try await center.post("s", payload: ["item": index]) }
        #expect(StoreFile.size(path + "-shm") ?? 0 >= mapped)
        #expect(try await center.deliverDue() == 100)
        let other = try SQLiteSignalStore(path: path)
        #expect(try await other.statistics().completions == 100)
        #expect(
            messages.all == [
                "info: the -shm file was cut while open; gave it back its size, SQLite rebuilds its index from the -wal file "
                    + "[handlerkit.file=\(path)-shm, handlerkit.found_bytes=0, handlerkit.restored_bytes=\(mapped), "
                    + "handlerkit.store=\(path)]"
            ])
    }

    /// The same after a suspension: the last connection to close removes the `-shm` file and the
    /// resumed one makes a new one, which the store then guards (not the removed one).
    @Test func aSharedMemoryFileCutAfterAResumeIsGivenBackItsSize() async throws {
        let messages = LogMessages()
        let logger = Logger(label: "test") { _ in messages }
        let registry = try makeRegistry(Recorder())
        let store = try SQLiteSignalStore(path: path, options: .init(logger: logger))
        let center = try await manualCenter("app", store: store, registry: registry)
        _ = try await center.register(
            try Handler(id: "Sink.receive", registry: registry), for: "s", delivery: .everyRevision)
        _ = try await center.post("s", payload: ["item": 0])
        #expect(access(path + "-shm", F_OK) == 0)
        _ = try await center.suspend(finishingWithin: .seconds(1))
        #expect(access(path + "-shm", F_OK) != 0, "the last connection to close removed the -shm file")
        _ = try await center.resume()
        _ = try await center.post("s", payload: ["item": 1])
        #expect(access(path + "-shm", F_OK) == 0, "the resumed connection made a new -shm file")
        let mapped = try #require(StoreFile.size(path + "-shm"))

        #expect(truncate(path + "-shm", 0) == 0)
        _ = try await center.post("s", payload: ["item": 2])
        #expect(try await center.deliverDue() == 3)
        #expect(
            messages.all == [
                "info: the -shm file was cut while open; gave it back its size, SQLite rebuilds its index from the -wal file "
                    + "[handlerkit.file=\(path)-shm, handlerkit.found_bytes=0, handlerkit.restored_bytes=\(mapped), "
                    + "handlerkit.store=\(path)]"
            ])
    }

    // MARK: The wake file

    /// The wake file deleted while a center delivers in another process: the next post from a third
    /// process still reaches its handler at once.
    @Test func aDeletedWakeFileIsMadeAgainAndPostsStillWakeAnotherProcess() async throws {
        let ready = folder.path + "/ready"
        let output = folder.path + "/serve.out"
        let server = try Probe.start(
            [
                "serve", "--component", "app", "--log", log, "--signals", "3", "--prefix", "w", "--ready", ready,
                "--db", path,
            ],
            output: output)
        let served = { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        defer { if server.isRunning { server.terminate() } }
        try await TestWait.until("the serving process to be ready", limit: .seconds(120), seen: { served() }) {
            FileManager.default.fileExists(atPath: ready) || !server.isRunning
        }
        try #require(server.isRunning, "the serving process ended early: \(served())")
        try FileManager.default.removeItem(atPath: path + ".wake")
        // The serving process's listener notices the deletion and makes the file again.
        try await TestWait.until("the serving process to make the wake file again", seen: { served() }) {
            FileManager.default.fileExists(atPath: path + ".wake")
        }
        let posted = try await probe(["post", "--component", "sync", "--signals", "3", "--prefix", "w"])
        #expect(posted.status == 0, "\(posted.output)")
        let started = ContinuousClock.now
        try await TestWait.until("the serving process to handle the 3 posts and end", seen: { served() }) {
            !server.isRunning
        }
        let latency = ContinuousClock.now - started
        await Probe.finish(server)
        #expect(served().contains("served"), "\(served())")
        // Woken by the posts, not by the center's rescan (every 60 s without a wake-up): the bound
        // tells the two apart, it is not a speed requirement.
        #expect(latency < .seconds(20), "post → handler after the wake file was deleted: \(latency)")
        #expect(HandlerLog(path: log).returnedKeys.count == 3)
        print("sqlite.files: wake file deleted under a delivering process, post → handler \(latency) (3 signals)")
    }

    /// In one process: the listener notices the deletion, makes the file again and logs it once; a
    /// post of this process (whose descriptor was of the deleted file) still wakes it.
    @Test func aDeletedWakeFileIsLoggedOnceAndThisProcessesPostsStillWakeIt() async throws {
        let messages = LogMessages()
        let logger = Logger(label: "test") { _ in messages }
        let registry = try makeRegistry(Recorder())
        let store = try SQLiteSignalStore(path: path, options: .init(logger: logger))
        let center = try await manualCenter("app", store: store, registry: registry)
        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "a")
        _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "b")
        _ = try await center.post("a", payload: ["item": 1])
        let listener = try store.makeWakeListener()
        defer { listener.close() }
        try FileManager.default.removeItem(atPath: path + ".wake")
        try await TestWait.until("the listener to make the wake file again") {
            FileManager.default.fileExists(atPath: path + ".wake")
        }
        await listener.next(deadline: .now + .milliseconds(10))
        #expect(try await center.post("b", payload: ["item": 2]).deliveries == 1)
        // Woken by the post, not by the deadline: a listener that lost the file would wait it out. The
        // bound only tells the two apart: in a test process busy with other suites, the waiting task
        // can resume seconds after the wake-up (seen: 14 s), never near the deadline.
        let started = ContinuousClock.now
        await listener.next(deadline: .now + .seconds(180))
        let latency = ContinuousClock.now - started
        #expect(latency < .seconds(90), "woken after \(latency)")
        print("sqlite.files: wake file deleted in this process, post → wake-up \(latency)")
        try await Task.sleep(for: .milliseconds(50))
        #expect(
            messages.all == [
                "info: the wake file was deleted or replaced; made it again and watching it again "
                    + "[handlerkit.file=\(path).wake, handlerkit.store=\(path)]"
            ])
        try await center.stop()
    }

    // MARK: Opening

    /// Making a store object never waits: while another process keeps the database locked, the
    /// store's first write waits for it (suspended), and says how long it waited when the lock outlasts
    /// `busyTimeout`.
    @Test func aStoreLockedLongerThanTheBusyTimeoutFailsItsFirstWriteSayingHowLongItWaited() async throws {
        let registry = try makeRegistry(Recorder())
        _ = try SQLiteSignalStore(path: path)
        let blocker = try await LockHolder(path: path)
        let store = try SQLiteSignalStore(path: path, options: .init(busyTimeout: .milliseconds(400)))
        let started = ContinuousClock.now
        let error = await #expect(throws: SignalError.self) {
            try await SignalCenter.start(component: "app", store: store, registry: registry)
        }
        let elapsed = (ContinuousClock.now - started).seconds
        try await blocker.release()
        guard case .storeBusy(let where_, let operation, let waited)? = error else {
            Issue.record("expected storeBusy, got \(String(describing: error))")
            return
        }
        #expect(where_ == path && operation.hasPrefix("starting run"), "\(operation)")
        #expect(waited >= 0.4 && waited <= elapsed + 0.001, "waited \(waited) s of \(elapsed) s")
        let center = try await SignalCenter.start(component: "app", store: store, registry: registry)
        try await center.stop()
    }

    /// Another connection is in the middle of writing the new, empty file when the store opens it:
    /// SQLite answers the switch to WAL with SQLITE_BUSY at once. Making the store object does not
    /// wait; its first operation opens the database once the other writer is done, instead of failing.
    @Test func openingANewStoreWhileAnotherConnectionWritesItWaitsForIt() async throws {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: path, configuration: configuration)
        try runSQL("BEGIN IMMEDIATE; CREATE TABLE early (x)", in: other)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { try? runSQL("ROLLBACK", in: other) }
        let started = ContinuousClock.now
        let store = try SQLiteSignalStore(path: path, options: .init(busyTimeout: .seconds(60)))
        #expect(try await store.statistics() == SignalStoreStatistics())
        #expect(ContinuousClock.now - started >= .milliseconds(250), "it waited for the other connection")
    }

    /// 8 processes open a new store at the same moment, 50 times: none fails.
    @Test func concurrentFirstOpensOfANewStoreNeverFail() async throws {
        let processes = 8
        let rounds = 50
        var failures: [String] = []
        for round in 0..<rounds {
            let store = folder.path + "/new\(round).sqlite"
            let outcomes = try await withThrowingTaskGroup(of: Probe.Outcome.self) { group in
                for _ in 0..<processes {
                    group.addTask { try await Probe.run(["open", "--db", store], folder: folder.path) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            failures += outcomes.filter { $0.status != 0 || $0.output != "open 0\n" }.map(\.output)
        }
        #expect(failures.isEmpty, "\(failures.count) failed: \(failures.prefix(3))")
        print(
            "sqlite.files: \(processes) processes × \(rounds) rounds opening a new store at once: \(failures.count) failures"
        )
    }
}

/// The size of a file, `nil` if there is none.
/// The frames of a `-wal` file as SQLite wrote them (a test reads a file it knows to be whole).
struct LogFrames {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private func number(at offset: Int) -> Int { bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }

    var pageSize: Int { number(at: 8) }

    /// The database's first page as the last commit in the file left it, if a commit wrote it.
    var lastCommittedFirstPage: [UInt8]? {
        let frameSize = 24 + pageSize
        var (offset, written, committed): (Int, [UInt8]?, [UInt8]?) = (32, nil, nil)
        while offset + frameSize <= bytes.count {
            if number(at: offset) == 1 { written = Array(bytes[(offset + 24)..<(offset + frameSize)]) }
            if number(at: offset + 4) > 0 { committed = written }
            offset += frameSize
        }
        return committed
    }
}

enum StoreFile {
    static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }
}

/// Runs `sql` on `queue`'s connection, outside of a transaction, on the calling thread.
func runSQL(_ sql: String, in queue: DatabaseQueue) throws {
    try queue.writeWithoutTransaction { db in try db.execute(sql: sql) }
}

/// Another connection holding the write lock of a store (`BEGIN IMMEDIATE`) until released.
struct LockHolder {
    private let queue: DatabaseQueue

    init(path: String) async throws {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
    }

    func release() async throws {
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
    }
}

/// A `LogHandler` that keeps every message, as `level: message [key=value, …]` (the metadata sorted
/// by key).
final class LogMessages: LogHandler, Sendable {
    private let messages = Locked<[String]>([])
    private let stored = Locked<Logger.Metadata>([:])

    var all: [String] { messages.withLock { $0 } }

    var metadata: Logger.Metadata {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { stored.withLock { $0[key] } }
        set { stored.withLock { $0[key] = newValue } }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let pairs = merged.keys.sorted().map { "\($0)=\(merged[$0].map { "\($0)" } ?? "")" }
        messages.withLock { $0.append("\(event.level): \(event.message) [\(pairs.joined(separator: ", "))]") }
    }
}
