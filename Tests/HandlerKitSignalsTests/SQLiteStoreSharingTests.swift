import CHandlerKitDarwinShim
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import TestWaiting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files an SQLite store makes of its own follow its database file: its permission bits (so
/// every process that may write the database may join the store, under any user of its group) and
/// the store's data protection. A process that may not read a file of the store is told which file,
/// why, and what to do.
@Suite("Signals: SQLite store files shared between users")
struct SQLiteStoreSharingTests {
    let folder = TemporaryFolder()
    var path: String { folder.path + "/signals.sqlite" }
    var log: String { folder.path + "/handlers.log" }

    func probe(_ arguments: [String]) async throws -> Probe.Outcome {
        try await Probe.run(arguments + ["--db", path], folder: folder.path)
    }

    func otherUser(_ arguments: [String]) async throws -> OtherUser.Outcome {
        try await OtherUser.probe(arguments + ["--db", path], folder: folder.path)
    }

    /// An empty database file with `mode`: a new store, whose files SQLite and the store then make.
    func makeDatabase(mode: mode_t, group: gid_t = 0) throws {
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(chown(path, 0, group) == 0 || getuid() != 0)
        #expect(chmod(path, mode) == 0)
    }

    @Test(arguments: [0o660, 0o600, 0o644, 0o666] as [mode_t])
    func theStoresOwnFilesGetTheDatabaseFilesPermissionBits(_ mode: mode_t) async throws {
        try makeDatabase(mode: mode)
        let store = try SQLiteSignalStore(path: path)
        let center = try await manualCenter("app", store: store, registry: try makeRegistry(Recorder()))
        let listener = try store.makeWakeListener()
        defer { listener.close() }
        let lock = "\(path).runs/\(center.runID).lock"
        #expect(StoreFile.bits(path + ".runs") == mode | (mode & 0o444) >> 2, "a folder gets x where it gets r")
        for file in [path, path + "-wal", path + "-shm", path + ".marker", path + ".wake", lock] {
            #expect(StoreFile.bits(file) == mode, "\(file)")
        }
        try await center.stop()
    }

    /// Root makes a store in a folder of group 65534 (its database group-writable); a process of
    /// another user of that group posts to it: it takes its run lock in the runs folder root made,
    /// wakes root's listener through the wake file root made, and its deliveries are there.
    @Test(.enabled(if: getuid() == 0, "needs root, to run a second process as another user"))
    func anotherUserOfTheGroupJoinsAGroupWritableStore() async throws {
        #expect(chown(folder.path, 0, OtherUser.group) == 0 && chmod(folder.path, 0o770) == 0)
        try makeDatabase(mode: 0o660, group: OtherUser.group)
        let registered = try await probe(["register", "--component", "app", "--log", log, "--signals", "3", "--stop"])
        #expect(registered.status == 0, "\(registered.output)")
        let store = try SQLiteSignalStore(path: path)
        let listener = try store.makeWakeListener()
        defer { listener.close() }
        await listener.next(deadline: .now + .milliseconds(10))

        let posted = try await otherUser(["post", "--component", "sync", "--signals", "3"])
        #expect(posted.status == 0, "\(posted.output)")
        #expect(posted.lines.filter { $0.hasPrefix("posted ") && $0.hasSuffix(" 1") }.count == 3, "\(posted.output)")
        // Woken by the posts, not by the deadline, which a listener without a wake-up waits out: the
        // bounds tell the two apart on a loaded machine too; they are not speed requirements.
        let started = ContinuousClock.now
        await listener.next(deadline: .now + TestWait.bound(.seconds(120)))
        let waited = ContinuousClock.now - started
        #expect(waited < TestWait.bound(.seconds(60)), "the other user's posts woke this process (after \(waited))")
        #expect(try await store.statistics().pendingDeliveries == 3)
        for file in [path + ".runs", path + ".wake", path + "-wal", path + "-shm"] {
            #expect(StoreFile.group(file) == OtherUser.group, "\(file)")
        }
        print("sqlite.sharing: uid \(OtherUser.user) of group \(OtherUser.group) posted 3 signals to root's store")
    }

    /// A user who may not read the database is told which file, why, and what to do.
    @Test(.enabled(if: getuid() == 0, "needs root, to run a second process as another user"))
    func aUserWhoMayNotReadTheDatabaseIsToldWhyAndWhatToDo() async throws {
        #expect(chmod(folder.path, 0o777) == 0)
        try makeDatabase(mode: 0o600)
        _ = try SQLiteSignalStore(path: path)
        let refused = try await otherUser(["open"])
        #expect(refused.status == 1)
        #expect(
            refused.output.contains(
                "signal store \(path) cannot be opened: permission denied (it is owned by uid 0, gid 0, mode 600; this process runs as uid \(OtherUser.user), gid \(OtherUser.group)): every process that shares the store must be able to read and write its folder and files"
            ), "\(refused.output)")
    }

    /// A runs folder another user may not write (as a store made by a version that made it for its
    /// owner only): the run lock error names the folder, its owner and mode, and what to do.
    @Test(.enabled(if: getuid() == 0, "needs root, to run a second process as another user"))
    func aRunsFolderTheUserMayNotWriteIsARunLockErrorSayingWhy() async throws {
        #expect(chmod(folder.path, 0o777) == 0)
        try makeDatabase(mode: 0o666)
        _ = try SQLiteSignalStore(path: path)
        #expect(mkdir(path + ".runs", 0o700) == 0)
        let refused = try await otherUser(["post", "--component", "sync", "--signals", "1"])
        #expect(refused.status == 1)
        #expect(
            refused.output.contains(
                "cannot create it: permission denied (its folder \(path).runs is owned by uid 0, gid 0, mode 700; this process runs as uid \(OtherUser.user), gid \(OtherUser.group))"
            ), "\(refused.output)")
        #expect(refused.output.contains("handlerkit-signals-probe: run lock file \(path).runs/"), "\(refused.output)")
    }
}

/// The store's data protection: the class of the files it makes, and, on a locked device, a file of a
/// class that keeps it closed then is refused naming it. Serialized: the locked device (simulated on
/// Linux by the shim, for the files of classes this process recorded) lasts one test.
@Suite("Signals: SQLite store files' data protection", .serialized)
struct SQLiteStoreDataProtectionTests {
    let folder = TemporaryFolder()
    var path: String { folder.path + "/signals.sqlite" }

    @Test func theDefaultProtectionLetsProcessesOpenTheStoreWhileTheDeviceIsLocked() {
        #expect(SQLiteSignalStore.Options().fileProtection == .completeUntilFirstUserAuthentication)
    }

    /// A store made with one class, opened again with another: the files made at each opening get
    /// its class (the `-wal` and `-shm` files are made again at each first opening; a new store's
    /// first ones are SQLite's). On Linux the class is recorded, not applied.
    @Test func theFilesTheStoreMakesGetItsDataProtection() async throws {
        do {
            let first = try SQLiteSignalStore(path: path, options: .init(fileProtection: .none))
            _ = try await first.statistics()
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the last connection removed it")
        let store = try SQLiteSignalStore(path: path, options: .init(fileProtection: .complete))
        let center = try await manualCenter("app", store: store, registry: try makeRegistry(Recorder()))
        let listener = try store.makeWakeListener()
        defer { listener.close() }
        #expect(SQLiteSignalStore.fileProtection(of: path) == FileProtection.none)
        #expect(SQLiteSignalStore.fileProtection(of: path + ".marker") == FileProtection.none)
        let lock = "\(path).runs/\(center.runID).lock"
        for file in [path + "-wal", path + "-shm", path + ".runs", lock, path + ".wake"] {
            #expect(SQLiteSignalStore.fileProtection(of: file) == .complete, "\(file)")
        }
        try await center.stop()
    }

    /// On a locked device the files of class complete (or complete unless open) cannot be opened: a
    /// process that opens such a store then gets `storeUnavailable` naming the file and what to do;
    /// a store of the default class opens. Once the device is unlocked, the first store opens.
    @Test func aStoreOfCompleteProtectionIsRefusedWhileTheDeviceIsLocked() async throws {
        _ = try await SQLiteSignalStore(path: path, options: .init(fileProtection: .complete)).statistics()
        let other = folder.path + "/other.sqlite"
        _ = try await SQLiteSignalStore(path: other).statistics()
        #expect(SQLiteSignalStore.fileProtection(of: path) == .complete)
        #expect(hk_simulate_locked_device(folder.path) == 0)
        defer { hk_simulate_locked_device(nil) }
        let refused = #expect(throws: SignalError.self) {
            try SQLiteSignalStore(path: path, options: .init(fileProtection: .completeUntilFirstUserAuthentication))
        }
        guard case .storeUnavailable(let file, let reason)? = refused else {
            Issue.record("expected storeUnavailable, found \(String(describing: refused))")
            return
        }
        #expect(file == path)
        #expect(
            reason.contains("operation not permitted: on Apple platforms, a file whose data protection is complete"))
        #expect(reason.contains("FileProtection.completeUntilFirstUserAuthentication"))
        #expect("\(refused.map(String.init(describing:)) ?? "")".contains(path))
        _ = try await SQLiteSignalStore(path: other).statistics()
        hk_simulate_locked_device(nil)
        _ = try await SQLiteSignalStore(path: path).statistics()
    }
}

/// Another user (uid 4242) in group 65534 (`nogroup`), that the probe runs as through `setpriv`.
enum OtherUser {
    static let user: uid_t = 4242
    static let group: gid_t = 65534
    static let setpriv = "/usr/bin/setpriv"

    /// How a probe process of this user ended.
    struct Outcome {
        var status: Int32
        var output: String

        var lines: [Substring] { output.split(separator: "\n") }
    }

    /// Runs the probe as this user and waits for it. Fails (never skips) without `setpriv`.
    static func probe(_ arguments: [String], folder: String) async throws -> Outcome {
        guard let executable = Probe.executable else {
            throw Probe.Failure(description: "handlerkit-signals-probe not found next to the test bundle")
        }
        guard FileManager.default.isExecutableFile(atPath: setpriv) else {
            throw Probe.Failure(description: "\(setpriv) (util-linux) is needed to run a process as another user")
        }
        let output = folder + "/other-user-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: output) }
        guard FileManager.default.createFile(atPath: output, contents: nil) else {
            throw Probe.Failure(description: "cannot create \(output)")
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: setpriv)
        process.arguments =
            ["--reuid=\(user)", "--regid=\(group)", "--clear-groups", executable.path(percentEncoded: false)]
            + arguments
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try log.close()
        await Probe.finish(process)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return Outcome(status: process.terminationStatus, output: text)
    }
}

extension StoreFile {
    /// The permission bits of the file at `path`, `nil` if there is none.
    static func bits(_ path: String) -> mode_t? {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o777 : nil
    }

    /// The group of the file at `path`, `nil` if there is none.
    static func group(_ path: String) -> gid_t? {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_gid : nil
    }
}
