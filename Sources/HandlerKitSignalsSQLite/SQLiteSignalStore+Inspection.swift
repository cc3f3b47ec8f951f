import Foundation
import GRDB
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection
import SignalSQL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SQLiteSignalStore {
    /// Opens the database at `path` read-only: refuses a missing or empty file, a database that is not
    /// a signal store, and a signal store of another schema version, writing nothing.
    static func openForReading(path: String, options: Options) throws(SignalError) -> DatabaseQueue {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size else {
            throw .storeUnavailable(
                path: path, reason: "there is no file there; give the path of a store's database file")
        }
        guard size > 0 else {
            throw .storeUnavailable(path: path, reason: "the file is empty (0 bytes): it holds no store")
        }
        let files = StoreFiles(path: path)
        try files.checkLogFiles(operation: "opening the store for reading")
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "HandlerKitSignals inspection"
        configuration.busyMode = .immediateError
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let found = try queue.read { db in try SQLiteSchema.version(of: db, path: path) }
            if found == 0 {
                throw SignalError.notASignalStore(path: path, found: "an empty SQLite database (no tables)")
            }
            // An older store is read as it is (what a later version added is missing from its records).
            return queue
        } catch {
            throw openingError(error, files: files, operation: "opening the store for reading")
        }
    }
}

// MARK: Inspection

extension SQLiteSignalStore: InspectableSignalStore {
    /// A run is alive while its lock file is locked (testing it takes a shared lock for an instant,
    /// which a taker meanwhile sees as alive, and tries again later).
    @_spi(SignalStoreDriver)
    public func runRecords() async throws(SignalError) -> [RunRecord] {
        let rows = try await read("listing runs") { db in
            try Row.fetchAll(db, sql: "SELECT run_id, component, pid, started_at FROM runs ORDER BY started_at, run_id")
                .map { row -> (String, String, Int, Double) in
                    let id: String = try Self.column(row, "run_id", table: "runs", key: "?")
                    return (
                        id, try Self.column(row, "component", table: "runs", key: id),
                        try Self.column(row, "pid", table: "runs", key: id),
                        try Self.column(row, "started_at", table: "runs", key: id)
                    )
                }
        }
        let directory = runsDirectory
        return rows.map { id, component, pid, started in
            RunRecord(
                runID: id, component: component, host: nil, processID: pid,
                startedAt: Date(timeIntervalSince1970: started), heartbeatAt: nil,
                isAlive: Self.isLocked(RunLockFile.path(of: id, in: directory)))
        }
    }

    /// Whether a process holds the lock of the lock file at `path` (a missing file: no one).
    private static func isLocked(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(fd, LOCK_UN)
        return false
    }
}
