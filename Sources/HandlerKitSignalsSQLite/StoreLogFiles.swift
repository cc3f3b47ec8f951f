import Foundation
import GRDB
@_spi(SignalStoreDriver) import HandlerKitSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The checks of the `-wal` and `-shm` files, and the errors of a store whose files SQLite cannot
/// open or read: each names the file, what was found there and what to do.
extension StoreFiles {
    /// What the `-shm` file's index says of the `-wal` file (SQLite's wal-index header, in the
    /// byte order of the machine that wrote it).
    struct LogIndex {
        /// The frames (pages) of commits in the `-wal` file.
        var frames: Int
        /// How many of them a checkpoint copied into the database file.
        var copied: Int
        var pageSize: Int

        /// The size the `-wal` file has at least: its header and its frames.
        var logSize: Int { frames == 0 ? 0 : 32 + frames * (24 + pageSize) }
    }

    /// Refuses a `-wal` or `-shm` file that is not a regular file (a directory, say), and a missing
    /// `-wal` file whose commits, as the `-shm` index shows, were not yet copied into the database:
    /// SQLite would open the store without them, silently.
    ///
    /// A clean close by the last process copies the log into the database and removes both files,
    /// so a `-shm` file whose index counts frames not yet copied means a `-wal` file was there.
    ///
    /// - Throws: `SignalError.storeCorrupt` naming the file.
    func checkLogFiles(operation: String) throws(SignalError) {
        for file in [wal, sharedMemory] {
            if let kind = Self.kind(of: file), kind != S_IFREG { throw notAFile(file, kind, operation: operation) }
        }
        // Only when the `-wal` file is missing: reading the `-shm` file opens and closes a
        // descriptor of it, which would drop the locks of a connection of this process that uses it.
        guard Self.kind(of: wal) == nil, let index = logIndex(), index.frames > index.copied else { return }
        // Another process may have made the `-wal` file and committed to it since it was looked for
        // (the first opens of a new store): missing only when it is still missing after the index.
        guard Self.kind(of: wal) == nil else { return }
        throw missingLog(index, operation: operation)
    }

    /// The error of SQLite's I/O failure (`detail`, with its extended result `code`) while opening
    /// the store: the damaged or unreadable file found, or else the database file, with SQLite's
    /// words and what to check.
    func ioFailure(_ detail: String, code: Int32, operation: String) -> SignalError {
        for file in [path, wal, sharedMemory] {
            if let kind = Self.kind(of: file), kind != S_IFREG { return notAFile(file, kind, operation: operation) }
        }
        if let index = logIndex(), index.frames > index.copied {
            guard let size = Self.size(of: wal) else { return missingLog(index, operation: operation) }
            if size < index.logSize {
                return .storeCorrupt(
                    path: wal, operation: operation,
                    detail:
                        "the file was cut: it is \(size) bytes, but \(sharedMemory) shows \(index.frames) pages of commits in it (\(index.logSize) bytes), \(index.frames - index.copied) of them not yet copied into the database; those commits are lost. Stop every process that uses the store, then restore the store's files from a backup, or delete \(wal) and \(sharedMemory) to open the store without those commits (posts, registrations and completions in them; a delivery whose completion is lost runs its handler again)"
                )
            }
        }
        for file in [path, wal, sharedMemory] where Self.kind(of: file) != nil {
            if let reason = Self.unreadable(file) { return .storeUnavailable(path: file, reason: reason) }
        }
        return .storeUnavailable(
            path: path,
            reason:
                "an I/O error while \(operation) (\(detail), SQLite's extended code \(code)), yet each of its files (\(path), \(wal), \(sharedMemory)) is a regular file this process can read: check the disk and the file system (the system log names a failing device), that the folder is on a local file system (SQLite's locks do not work over most network file systems) and has free space, then open the store again"
        )
    }

    /// The index in the `-shm` file, when the file holds a whole one whose two copies agree (they
    /// differ while a process writes it).
    func logIndex() -> LogIndex? {
        let fd = open(sharedMemory, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { closeDescriptor(fd) }
        var bytes = [UInt8](repeating: 0, count: 136)
        guard pread(fd, &bytes, bytes.count, 0) == bytes.count, bytes[0..<48] == bytes[48..<96] else { return nil }
        return bytes.withUnsafeBytes { raw -> LogIndex? in
            func number(_ offset: Int) -> Int { Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
            let size = Int(raw.loadUnaligned(fromByteOffset: 14, as: UInt16.self))
            // Version 3007000 of the index, and an index that was initialized.
            guard number(0) == 3_007_000, raw[12] == 1 else { return nil }
            return LogIndex(frames: number(16), copied: number(96), pageSize: size == 1 ? 65_536 : size)
        }
    }

    private func missingLog(_ index: LogIndex, operation: String) -> SignalError {
        .storeCorrupt(
            path: wal, operation: operation,
            detail:
                "the file is missing, but \(sharedMemory) shows \(index.frames - index.copied) pages of commits in it that were not yet copied into the database: those commits (posts, registrations, completions) are lost with it. Stop every process that uses the store (they write to a log no other process can read), then restore the store's files from a backup, or delete \(sharedMemory) to open the store without those commits (a delivery whose completion is lost runs its handler again)"
        )
    }

    private func notAFile(_ file: String, _ kind: mode_t, operation: String) -> SignalError {
        let found =
            switch kind {
            case S_IFDIR: "a directory"
            case S_IFLNK: "a symbolic link"
            case S_IFIFO: "a named pipe"
            case S_IFSOCK: "a socket"
            default: "a device"
            }
        let what =
            file == wal
            ? "the store's write-ahead log, part of the database (the commits since the last checkpoint are only there)"
            : file == sharedMemory
                ? "the index of the store's write-ahead log, which the processes share in memory"
                : "the store's database"
        return .storeCorrupt(
            path: file, operation: operation,
            detail:
                "found \(found) where \(what) belongs, so SQLite cannot open or read it: move it out of the way, with no process using the store, and put the store's own file back from a backup (without a -wal file the commits in it are lost; without a -shm file SQLite makes it again)"
        )
    }

    /// The type of the file at `path` (`S_IFREG`, `S_IFDIR`…), not following a symbolic link; `nil`
    /// when there is none.
    private static func kind(of path: String) -> mode_t? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return status.st_mode & S_IFMT
    }

    /// Why this process cannot open or read the file at `path`; `nil` when it can.
    private static func unreadable(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "cannot open it: \(explain(errno, path))" }
        defer { closeDescriptor(fd) }
        var byte: UInt8 = 0
        guard read(fd, &byte, 1) >= 0 else {
            return
                "cannot read it: \(explain(errno, path)); check the disk and the file system (the system log names a failing device), then restore the store's files from a backup if they are damaged"
        }
        return nil
    }
}

extension SQLiteSignalStore {
    /// The `SignalError` of a failure to open the store: a failure to open or read one of its files
    /// is described by ``StoreFiles/ioFailure(_:code:operation:)`` (never the generic `.database`).
    static func openingError(
        _ error: any Error, files: StoreFiles, operation: String, busyWait: Double = 0
    ) -> SignalError {
        let mapped = signalError(error, path: files.path, operation: operation, busyWait: busyWait)
        switch mapped {
        case .database(_, _, let detail):
            // SQLite's I/O errors, and the file errors GRDB meets before SQLite does.
            guard let error = error as? DatabaseError else {
                return files.ioFailure(detail, code: 0, operation: operation)
            }
            guard error.resultCode == .SQLITE_IOERR else { return mapped }
            return files.ioFailure(detail, code: error.extendedResultCode.rawValue, operation: operation)
        case .storeUnavailable(_, let detail):
            guard let error = error as? DatabaseError, error.resultCode == .SQLITE_CANTOPEN else { return mapped }
            return files.ioFailure(detail, code: error.extendedResultCode.rawValue, operation: operation)
        default:
            return mapped
        }
    }
}
