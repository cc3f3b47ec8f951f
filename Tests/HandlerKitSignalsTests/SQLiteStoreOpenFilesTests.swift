import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// What a process holds open of an SQLite store's files, as its descriptors in `/proc/self/fd` show
/// (the list in the driver's article, "Files the store holds open"): the database's files while the
/// store is open, a run's lock file while the run lasts (none while it is suspended), and nothing else
/// past a call.
@Suite("Signals: SQLite store files held open")
struct SQLiteStoreOpenFilesTests {
    let folder = TemporaryFolder()
    var path: String { folder.path + "/signals.sqlite" }

    /// The files of the store's folder that this process has descriptors of, by name.
    func heldOpen() -> Set<String> {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        var held = Set<String>()
        for descriptor in descriptors {
            guard
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
                target.hasPrefix(folder.path + "/")
            else { continue }
            held.insert(String(target.dropFirst(folder.path.count + 1)))
        }
        return held
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd"), "needs /proc to list descriptors"))
    func aStoreHoldsItsDatabaseFilesAndARunItsLockFileAndNothingElse() async throws {
        let registry = try makeRegistry(Recorder())
        do {
            let store = try SQLiteSignalStore(path: path)
            let center = try await manualCenter("app", store: store, registry: registry)
            let listener = try store.makeWakeListener()
            _ = try await center.register(try Handler(id: "Sink.receive", registry: registry), for: "a")
            #expect(try await center.post("a", payload: ["item": 1]).deliveries == 1)
            await listener.next(deadline: .now + .seconds(2))
            let lock = "signals.sqlite.runs/\(center.runID).lock"
            #expect(heldOpen() == ["signals.sqlite", "signals.sqlite-wal", "signals.sqlite-shm", lock])
            try await center.suspend(finishingWithin: .seconds(1))
            #expect(heldOpen() == [], "a suspended center holds no file of the store open")
            try await center.resume()
            #expect(try await center.openDeliveries() == 1, "the store opened again by the next call")
            #expect(heldOpen() == ["signals.sqlite", "signals.sqlite-wal", "signals.sqlite-shm", lock])
            try await center.stop()
            listener.close()
            #expect(heldOpen() == ["signals.sqlite", "signals.sqlite-wal", "signals.sqlite-shm"])
        }
        #expect(heldOpen() == [], "the store released")
    }
}
