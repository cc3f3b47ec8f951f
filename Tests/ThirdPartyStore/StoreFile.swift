import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store's tables in one JSON file, which one operation at a time reads and changes: each
/// ``transaction(_:_:)`` takes an exclusive `flock` on the lock file beside it (every process and
/// every store object over the file waits for it), decodes the tables (empty when there is no file
/// yet), runs the operation, writes the file again when the tables changed, and releases the lock.
///
/// The file is replaced atomically (written to a temporary file, then renamed over it), so a process
/// that dies in the middle leaves the tables as they were before the operation or after it. (A store
/// for production would also `fsync` the temporary file and the folder before and after the rename.)
struct StoreFile: Sendable {
    /// The JSON file.
    let path: String
    /// How long completions stay in the history of a new file's tables.
    let completionHistory: Duration

    /// The file every transaction locks; never removed, so that every process locks the same file.
    var lockPath: String { path + ".lock" }

    /// Runs `body` on the tables with the file locked; writes them back when `body` changed them,
    /// `beforeCommit` called first. An error thrown by `body` leaves the file as it was. `purpose`
    /// names the operation in errors.
    func transaction<Result>(
        _ purpose: String, beforeCommit: (() -> Void)? = nil, _ body: (inout SignalTables) throws(SignalError) -> Result
    ) throws(SignalError) -> Result {
        let lock = try lockExclusively()
        defer { close(lock) }  // Closing the descriptor releases the lock.
        let before = try load(purpose)
        var tables = before
        let result = try body(&tables)
        if tables != before {
            beforeCommit?()
            try save(tables, purpose)
        }
        return result
    }

    /// Opens the lock file (making it when missing) and takes an exclusive lock on it, waiting for
    /// the process that holds it: every holder only reads and writes one small file.
    private func lockExclusively() throws(SignalError) -> Int32 {
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .storeUnavailable(path: lockPath, reason: "cannot open the lock file: \(Self.lastError())")
        }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let reason = Self.lastError()
                close(descriptor)
                throw .storeUnavailable(path: lockPath, reason: "cannot lock it: \(reason)")
            }
        }
        return descriptor
    }

    /// The tables in the file; empty tables when there is no file yet.
    private func load(_ purpose: String) throws(SignalError) -> SignalTables {
        guard FileManager.default.fileExists(atPath: path) else {
            return SignalTables(completionHistory: completionHistory)
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .storeUnavailable(path: path, reason: "cannot read it: \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(SignalTables.self, from: data)
        } catch {
            throw .storeCorrupt(path: path, operation: purpose, detail: "its JSON cannot be read: \(error)")
        }
    }

    /// Replaces the file with `tables`: written to a temporary file beside it, then renamed over it.
    private func save(_ tables: SignalTables, _ purpose: String) throws(SignalError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(tables)
        } catch {
            throw .database(path: path, operation: purpose, detail: "cannot encode the tables: \(error)")
        }
        let temporary = path + ".tmp"  // Only the holder of the lock writes it.
        do {
            try data.write(to: URL(fileURLWithPath: temporary))
        } catch let error as CocoaError where error.code == .fileWriteOutOfSpace {
            throw .storeFull(path: path, operation: purpose)
        } catch let error as CocoaError
            where error.code == .fileWriteNoPermission || error.code == .fileWriteVolumeReadOnly
        {
            throw .storeReadOnly(path: path, operation: purpose)
        } catch {
            throw .database(path: path, operation: purpose, detail: "cannot write \(temporary): \(error)")
        }
        guard rename(temporary, path) == 0 else {
            throw .database(path: path, operation: purpose, detail: "cannot rename \(temporary): \(Self.lastError())")
        }
    }

    static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
