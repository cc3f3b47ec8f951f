import Foundation
import HandlerKitSignals
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files that make up the store whose database is `path` (what each holds, and what deleting it
/// costs, is listed in the doc comment of `SQLiteSignalStore`), and the checks made on them before
/// SQLite opens the database.
struct StoreFiles {
    /// The database file.
    let path: String

    var wal: String { path + "-wal" }
    var sharedMemory: String { path + "-shm" }
    /// Written when the store is made: a store whose database is later empty or missing was lost,
    /// and is refused rather than made again empty.
    var marker: String { path + ".marker" }

    /// The folder that holds the store's files.
    var folder: String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// Refuses a database that was lost (empty or missing while the marker says a store was made)
    /// or whose header shows it was cut, before SQLite opens it. A missing or empty database without
    /// a marker is a new store.
    ///
    /// - Throws: `SignalError.storeLost`, `.storeCorrupt`.
    func checkBeforeOpening() throws(SignalError) {
        let marked = access(marker, F_OK) == 0
        switch Self.size(of: path) {
        case nil:
            if marked { throw .storeLost(path: path, found: "missing", marker: marker) }
        case 0?:
            if marked { throw .storeLost(path: path, found: "empty (0 bytes)", marker: marker) }
        case _?:
            // A checkpoint of another process writes the header's new page count before the pages
            // after it, and the file's pages before it removes the `-wal` file: a file that looks cut
            // is looked at again for a moment (100 ms) before it is refused.
            var looks = 1
            while true {
                do throws(SignalError) {
                    return try checkHeader()
                } catch {
                    guard looks < 5 else { throw error }
                    looks += 1
                    usleep(20_000)
                }
            }
        }
    }

    /// Refuses a database file shorter than its header, not a whole number of pages, or shorter than
    /// the page count its header records (when no `-wal` file holds pages the file does not have yet).
    /// A file that does not start like an SQLite database is left to SQLite, which says so.
    private func checkHeader() throws(SignalError) {
        func cut(_ detail: String) -> SignalError {
            .storeCorrupt(
                path: path, operation: "opening the store",
                detail: "\(detail): the file was cut; restore the store's files from a backup")
        }
        // The header first, then the size, then the `-wal` file: the order in which a checkpoint
        // changes them.
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100), let end = try? handle.seekToEnd() else { return }
        let size = Int(end)
        guard size >= 100 else {
            throw cut("the file is \(size) bytes, shorter than the 100-byte header of an SQLite database")
        }
        guard header.starts(with: Array("SQLite format 3\0".utf8)) else { return }
        func number(at offset: Int, bytes: Int) -> Int {
            header[offset..<(offset + bytes)].reduce(0) { $0 << 8 | Int($1) }
        }
        let pageSize = number(at: 16, bytes: 2) == 1 ? 65_536 : number(at: 16, bytes: 2)
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else { return }
        guard size % pageSize == 0 else {
            throw cut("the file is \(size) bytes, not a whole number of its \(pageSize)-byte pages")
        }
        // The header's page count is valid when its change counter matches "version valid for".
        let pages = number(at: 28, bytes: 4)
        guard pages > 0, number(at: 24, bytes: 4) == number(at: 92, bytes: 4), (Self.size(of: wal) ?? 0) == 0,
            size < pages * pageSize
        else { return }
        throw cut(
            "pages are missing: its header counts \(pages) pages of \(pageSize) bytes (\(pages * pageSize) bytes), the file holds \(size) bytes"
        )
    }

    /// Writes the marker of a store that is open (just made, or made by a version that wrote none).
    func writeMarker(logger: Logger?) {
        guard access(marker, F_OK) != 0 else { return }
        let text = """
            This file marks the HandlerKit signal store \((path as NSString).lastPathComponent) in this folder.
            Keep it with the store's other files: with it, a store whose database file is found empty or
            missing is refused instead of being made again, empty. Delete it with the other files only.

            """
        if !FileManager.default.createFile(atPath: marker, contents: Data(text.utf8)) {
            logger?.warning(
                "signal store \(path): cannot write its marker \(marker); if the database file is lost, an empty store will be made in its place"
            )
        }
    }

    /// The first of the store's files (or its folder) that cannot be written (immutable, on a
    /// read-only file system, or without permission): for an error whose cause SQLite does not say.
    func firstUnwritable() -> String? {
        func refused(_ file: String) -> Bool {
            access(file, W_OK) != 0 && [EACCES, EPERM, EROFS].contains(errno)
        }
        return [path, wal, sharedMemory].first { access($0, F_OK) == 0 && refused($0) }
            ?? (refused(folder) ? folder : nil)
    }

    /// The size of the file at `path`, `nil` if there is none.
    static func size(of path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }
}
