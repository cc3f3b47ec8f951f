import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import SignalsTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A store whose `-wal` or `-shm` file (or database file) is missing, or is not a file, when a
/// process opens it: a typed error naming the file, what was found there and what to do, never the
/// generic `SignalError.database`.
@Suite("Signals: SQLite store opened with a damaged -wal or -shm file")
struct SQLiteStoreLogFileTests {
    let folder = TemporaryFolder()
    var path: String { folder.path + "/signals.sqlite" }

    /// Makes the store at `store` and closes it (its commits are then in the database file), then
    /// opens it again and posts `count` kept signals: their commits are in its `-wal` file only.
    func openWithCommits(_ store: String, count: Int = 20) async throws -> SQLiteSignalStore {
        do { _ = try SQLiteSignalStore(path: store) }
        #expect(!FileManager.default.fileExists(atPath: store + "-wal"), "the last connection removed the log")
        let opened = try SQLiteSignalStore(path: store)
        for index in 0..<count {
            _ = try await opened.post(
                "kept\(index)", payload: Array(#"{"item":1}"#.utf8), keepUntil: Date().addingTimeInterval(3_600))
        }
        return opened
    }

    /// The error of opening the store at `store`; records an issue when it opens.
    func openingError(_ store: String) -> SignalError? {
        do {
            _ = try SQLiteSignalStore(path: store)
            Issue.record("the store at \(store) opened")
            return nil
        } catch {
            return error
        }
    }

    @Test func aLogDeletedWithCommitsNotYetCopiedIsRefusedNamingItAndWhatToDo() async throws {
        let store = try await openWithCommits(path)
        // The files as a process killed now leaves them: its commits in the -wal file, indexed in the -shm file.
        let copy = folder.path + "/copy"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm", ".marker"] {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + "/signals.sqlite" + suffix)
        }
        withExtendedLifetime(store) {}
        let copied = copy + "/signals.sqlite"
        try FileManager.default.removeItem(atPath: copied + "-wal")

        let error = openingError(copied)
        guard case .storeCorrupt(let file, let operation, let detail)? = error else {
            Issue.record("expected storeCorrupt naming the -wal file, got \(String(describing: error))")
            return
        }
        #expect(file == copied + "-wal")
        #expect(operation == "opening the store")
        #expect(detail.contains("missing") && detail.contains(copied + "-shm") && detail.contains("not yet copied"))
        #expect(detail.contains("restore the store's files from a backup") && detail.contains("delete \(copied)-shm"))
        // Doing what it says opens the store without those commits.
        try FileManager.default.removeItem(atPath: copied + "-shm")
        let reopened = try SQLiteSignalStore(path: copied)
        #expect(try await reopened.statistics().signals == 0, "the posts were in the lost log")
        #expect(try await store.statistics().signals == 20, "the original store holds them")
    }

    @Test func aLogDeletedWhileTheStoreIsOpenIsRefusedToTheNextOpeningNamingIt() async throws {
        let store = try await openWithCommits(path)
        try FileManager.default.removeItem(atPath: path + "-wal")
        let error = openingError(path)
        guard case .storeCorrupt(let file, _, let detail)? = error else {
            Issue.record("expected storeCorrupt naming the -wal file, got \(String(describing: error))")
            return
        }
        #expect(file == path + "-wal")
        #expect(detail.contains("missing") && detail.contains("Stop every process that uses the store"))
        withExtendedLifetime(store) {}
    }

    @Test(arguments: ["-wal", "-shm"])
    func aLogFileThatIsADirectoryIsRefusedNamingIt(suffix: String) async throws {
        do { _ = try await openWithCommits(path, count: 1) }
        try FileManager.default.createDirectory(atPath: path + suffix, withIntermediateDirectories: false)
        let error = openingError(path)
        guard case .storeCorrupt(let file, _, let detail)? = error else {
            Issue.record("expected storeCorrupt naming the \(suffix) file, got \(String(describing: error))")
            return
        }
        #expect(file == path + suffix)
        #expect(detail.hasPrefix("found a directory where") && detail.contains("move it out of the way"))
        // Once it is moved away, the store opens, with what its database file holds.
        try FileManager.default.removeItem(atPath: path + suffix)
        #expect(try await SQLiteSignalStore(path: path).statistics().signals == 1)
    }

    @Test func aDatabaseThatIsADirectoryIsRefusedNamingIt() async throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let error = openingError(path)
        guard case .storeCorrupt(let file, _, let detail)? = error else {
            Issue.record("expected storeCorrupt naming the database file, got \(String(describing: error))")
            return
        }
        #expect(file == path)
        #expect(detail.contains("found a directory where the store's database belongs"))
    }

    @Test func inspectingAStoreWhoseLogWasDeletedSaysSoToo() async throws {
        let store = try await openWithCommits(path)
        try FileManager.default.removeItem(atPath: path + "-wal")
        do {
            _ = try SQLiteSignalStore(inspecting: path)
            Issue.record("the store opened for inspection")
        } catch {
            guard case .storeCorrupt(let file, let operation, _) = error else {
                Issue.record("expected storeCorrupt naming the -wal file, got \(error)")
                return
            }
            #expect(file == path + "-wal" && operation == "opening the store for reading")
        }
        withExtendedLifetime(store) {}
    }
}
