import CHandlerKitDarwinShim
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
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
    /// - Throws: `SignalError.storeLost`, `.storeCorrupt` (also for a `-wal` or `-shm` file that is
    ///   not a regular file, or a `-wal` file lost with commits: ``checkLogFiles(operation:)``),
    ///   `.storeUnavailable`.
    func checkBeforeOpening() throws(SignalError) {
        try checkOpenable()
        try checkLogFiles(operation: "opening the store")
        let marked = access(marker, F_OK) == 0
        switch Self.size(of: path) {
        case nil:
            if marked { throw .storeLost(path: path, found: "missing", marker: marker) }
        case 0?:
            if marked { throw .storeLost(path: path, found: "empty (0 bytes)", marker: marker) }
        case _?:
            try checkPages()
        }
    }

    /// Refuses a database file shorter than its header, not a whole number of pages, or shorter than
    /// the page count its header records while its `-wal` file does not hold the missing pages either
    /// (up to the page count of its last commit there, when it holds one). A file that does not start
    /// like an SQLite database is left to SQLite, which says so.
    ///
    /// The `-wal` file is read only for a file shorter than its header says (it is cut, or another
    /// process's checkpoint is copying pages into it): a store's pages are in one file or the other
    /// then, since a checkpoint copies pages without changing the `-wal` file. A commit, or a
    /// checkpoint that restarts or removes the `-wal` file, changes its size or header: the `-wal`
    /// file is compared before and after the database file is read, and the files are looked at
    /// again when it changed. A store whose files keep changing is left to SQLite.
    private func checkPages() throws(SignalError) {
        for _ in 0..<100 {
            let before = StoreLogPages.fingerprint(of: wal)
            guard let (header, size) = Self.header(of: path),
                let short = try shortFile(header: header, size: size)
            else { return }
            let log = StoreLogPages.read(wal)
            guard (log?.fingerprint ?? StoreLogPages.fingerprint(of: wal)) == before else { continue }
            return try checkLog(log, short)
        }
    }

    /// A database file that holds fewer pages than its header records.
    private struct ShortFile {
        let size: Int
        let pageSize: Int
        let headerPages: Int
    }

    private func cut(_ detail: String) -> SignalError {
        .storeCorrupt(
            path: path, operation: "opening the store",
            detail: "\(detail): the file was cut; restore the store's files from a backup")
    }

    /// Throws for a file shorter than the header or not a whole number of pages; returns what a file
    /// shorter than the page count of its header holds, `nil` for any other file.
    private func shortFile(header: [UInt8], size: Int) throws(SignalError) -> ShortFile? {
        guard size >= 100 else {
            throw cut("the file is \(size) bytes, shorter than the 100-byte header of an SQLite database")
        }
        guard header.starts(with: Array("SQLite format 3\0".utf8)) else { return nil }
        func number(at offset: Int, bytes: Int) -> Int {
            header[offset..<(offset + bytes)].reduce(0) { $0 << 8 | Int($1) }
        }
        let pageSize = number(at: 16, bytes: 2) == 1 ? 65_536 : number(at: 16, bytes: 2)
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else { return nil }
        guard size % pageSize == 0 else {
            throw cut("the file is \(size) bytes, not a whole number of its \(pageSize)-byte pages")
        }
        // The header's page count is valid when its change counter matches "version valid for".
        let pages = number(at: 28, bytes: 4)
        guard pages > 0, number(at: 24, bytes: 4) == number(at: 92, bytes: 4), size < pages * pageSize else {
            return nil
        }
        return ShortFile(size: size, pageSize: pageSize, headerPages: pages)
    }

    /// Throws when pages a short database file is missing are not in its `-wal` file either.
    private func checkLog(_ log: StoreLogPages?, _ file: ShortFile) throws(SignalError) {
        guard let log, let pages = log.databasePages else {
            throw cut(
                "pages are missing: its header counts \(file.headerPages) pages of \(file.pageSize) bytes (\(file.headerPages * file.pageSize) bytes), the file holds \(file.size) bytes"
            )
        }
        guard log.pageSize == file.pageSize else { return }
        let missing = (file.size / file.pageSize + 1..<pages + 1).filter { !log.pages.contains(UInt32($0)) }
        guard let first = missing.first else { return }
        throw cut(
            "pages are missing: its last commit, in \(wal), counts \(pages) pages of \(file.pageSize) bytes (\(pages * file.pageSize) bytes), the file holds \(file.size) bytes, and \(missing.count) of the pages after them (the first is page \(first)) are in neither file"
        )
    }

    /// Refuses a file of the store that this process may not read (its permissions, or on Apple
    /// platforms its data protection while the device is locked), naming the file, the cause and what
    /// to do. A file it may read but not write is left to SQLite, which opens it read-only (a write
    /// then fails with `SignalError.storeReadOnly`).
    ///
    /// - Throws: `SignalError.storeUnavailable`.
    private func checkOpenable() throws(SignalError) {
        if faccessat(AT_FDCWD, folder, X_OK, AT_EACCESS) != 0 && errno == EACCES {
            throw .storeUnavailable(path: folder, reason: Self.explain(EACCES, folder))
        }
        for file in [path, wal, sharedMemory] where access(file, F_OK) == 0 {
            if faccessat(AT_FDCWD, file, R_OK, AT_EACCESS) != 0 && errno == EACCES {
                throw .storeUnavailable(path: file, reason: Self.explain(EACCES, file))
            }
            // A file of a class that keeps it closed while the device is locked: opened once to see
            // (as the header check reads the database; the store's connection is not open yet).
            guard let protection = Self.protection(of: file), [.complete, .completeUnlessOpen].contains(protection)
            else { continue }
            let fd = hk_open_protected(file)
            guard fd < 0 else {
                closeDescriptor(fd)
                continue
            }
            let code = errno
            if code == EPERM || code == EACCES {
                throw .storeUnavailable(path: file, reason: Self.explain(code, file))
            }
        }
    }

    /// Makes the store's files that SQLite would make with the folder's data protection, before
    /// SQLite opens them, so that they are made with `protection` instead (SQLite keeps the files it
    /// finds): a missing database file (empty: a new store; SQLite's permission bits, `0644` less the
    /// umask), and the missing `-wal` and `-shm` files of a signal store in WAL mode (empty: files
    /// SQLite has not written yet; the database file's bits, as SQLite makes them). A new database is
    /// not in WAL mode until SQLite opens it: its first `-wal` and `-shm` files are SQLite's; nor are
    /// files made beside a database that is not a signal store, which opening then refuses.
    ///
    /// - Throws: `SignalError.storeReadOnly` naming the folder where a file cannot be made for want of
    ///   permission or on a read-only file system, `.storeUnavailable` naming a file that cannot be
    ///   made otherwise.
    func makeMissingFiles(protection: FileProtection) throws(SignalError) {
        do throws(StoreFileError) {
            if let fd = try StoreFileMaker(database: path, protection: protection).create(path, newDatabase: true) {
                closeDescriptor(fd)
                return
            }
            guard isSignalStoreInWALMode else { return }
            let maker = StoreFileMaker(database: path, protection: protection)
            for file in [wal, sharedMemory] {
                if let fd = try maker.create(file) { closeDescriptor(fd) }
            }
        } catch {
            guard [EACCES, EPERM, EROFS].contains(error.code) else {
                throw .storeUnavailable(path: error.path, reason: error.reason)
            }
            throw .storeReadOnly(path: folder, operation: "opening the store (making \(error.path))")
        }
    }

    /// Whether the database file's header says it is a signal store (its application id) in WAL mode
    /// (its read and write versions are 2). Authoritative when the `-wal` file is missing: the
    /// database file then holds every commit.
    private var isSignalStoreInWALMode: Bool {
        guard let (header, _) = Self.header(of: path), header.count >= 72 else { return false }
        let application = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return header.starts(with: Array("SQLite format 3\0".utf8)) && header[18] == 2 && header[19] == 2
            && Int32(bitPattern: application) == SQLiteSchema.applicationID
    }

    /// The first 100 bytes of the file at `path` (fewer when it is shorter) and its size; `nil` when
    /// it cannot be read. Read with `open` and `read`, not `FileHandle`, whose module an app extension
    /// would otherwise load for these bytes.
    private static func header(of path: String) -> (bytes: [UInt8], size: Int)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { closeDescriptor(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 100)
        let count = read(fd, &bytes, bytes.count)
        guard count >= 0 else { return nil }
        return (Array(bytes.prefix(count)), Int(status.st_size))
    }

    /// Writes the marker of a store that is open (just made, or made by a version that wrote none).
    func writeMarker(protection: FileProtection, logger: Logger?) {
        guard access(marker, F_OK) != 0 else { return }
        let text = """
            This file marks the HandlerKit signal store \((path as NSString).lastPathComponent) in this folder.
            Keep it with the store's other files: with it, a store whose database file is found empty or
            missing is refused instead of being made again, empty. Delete it with the other files only.

            """
        do throws(StoreFileError) {
            guard let fd = try StoreFileMaker(database: path, protection: protection).create(marker) else { return }
            defer { closeDescriptor(fd) }
            let bytes = Array(text.utf8)
            guard write(fd, bytes, bytes.count) == bytes.count else {
                throw StoreFileError.last("cannot write it", marker)
            }
        } catch {
            logger?.info(
                "cannot write the store's marker: if the database file is lost, an empty store will be made in its place",
                metadata: ["handlerkit.file": .string(marker), SignalLogKey.error: .string(error.reason)])
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

    /// The data protection class of the file or folder at `path`, `nil` when it has none (or, on
    /// Linux, when this process set none: it only records what it would set).
    static func protection(of path: String) -> FileProtection? {
        FileProtection(protectionClass: hk_protection_class_at(path))
    }

    /// Why `code` (an `errno` about `file`) happened, and what to do about it.
    static func explain(_ code: Int32, _ file: String) -> String {
        switch code {
        case EACCES:
            func owner(_ file: String) -> String? {
                var status = stat()
                guard stat(file, &status) == 0 else { return nil }
                return
                    "owned by uid \(status.st_uid), gid \(status.st_gid), mode \(String(status.st_mode & 0o777, radix: 8))"
            }
            let folder = (file as NSString).deletingLastPathComponent
            let owner =
                owner(file).map { "it is \($0)" } ?? owner(folder).map { "its folder \(folder) is \($0)" }
                ?? "its folder \(folder) cannot be reached"
            return
                "permission denied (\(owner); this process runs as uid \(geteuid()), gid \(getegid())): every process that shares the store must be able to read and write its folder and files: give them a group in common with read and write permission on the folder and the database file (chgrp, chmod g+rwx on the folder, g+rw on the file); the store makes its other files with the database file's permission bits"
        case EPERM:
            return
                "operation not permitted: on Apple platforms, a file whose data protection is complete (or complete unless open) cannot be opened while the device is locked: open the store with FileProtection.completeUntilFirstUserAuthentication in every process that runs while the device is locked (a notification service extension), or only once it is unlocked; elsewhere the file may be immutable (chattr +i, chflags uchg)"
        default:
            return String(cString: strerror(code))
        }
    }

    /// The size of the file at `path`, `nil` if there is none.
    static func size(of path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }
}

extension SQLiteSignalStore {
    /// How this store makes its files now (with its database file's permission bits at this moment).
    var fileMaker: StoreFileMaker { StoreFileMaker(database: path, protection: options.fileProtection) }

    /// The data protection class of the file or folder at `path` (on Linux, the one this process
    /// recorded when it made the file), for this package's tests.
    package static func fileProtection(of path: String) -> FileProtection? {
        StoreFiles.protection(of: path)
    }
}

/// A file of the store that could not be made: where, and why (`code`, the `errno`, explained by
/// `StoreFiles.explain` in `reason`).
struct StoreFileError: Error {
    let path: String
    let code: Int32
    let reason: String

    /// The failure to `action` the file at `path` that `errno` tells.
    static func last(_ action: String, _ path: String) -> StoreFileError {
        let code = errno
        return StoreFileError(path: path, code: code, reason: "\(action): \(StoreFiles.explain(code, path))")
    }
}

/// How the store makes the files of its own (its runs folder and lock files, its wake file and its
/// marker, and the database, `-wal` and `-shm` files before SQLite opens them): with the database
/// file's permission bits (a folder gets x where it gets r) and group (and, made by root, owner), as
/// SQLite makes its `-wal` and `-shm` files, so that the processes that may write the database may
/// write them all; and with the store's data protection.
struct StoreFileMaker {
    /// The permission bits of a file.
    let mode: mode_t
    let owner: uid_t?
    let group: gid_t?
    let protection: FileProtection

    init(database: String, protection: FileProtection) {
        var status = stat()
        if stat(database, &status) == 0 {
            mode = status.st_mode & 0o777
            owner = geteuid() == 0 ? status.st_uid : nil
            group = status.st_gid
        } else {
            mode = 0o600
            owner = nil
            group = nil
        }
        self.protection = protection
    }

    /// The permission bits of a folder: a file's, with x where there is r.
    var folderMode: mode_t { mode | (mode & 0o444) >> 2 }

    /// Makes the file at `path` unless there is one: a descriptor of the new file (read-write), `nil`
    /// when it exists. A `newDatabase` keeps the bits SQLite gives one (`0644` less the umask).
    func create(_ path: String, newDatabase: Bool = false) throws(StoreFileError) -> Int32? {
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, newDatabase ? 0o644 : mode)
        guard fd >= 0 else {
            if errno == EEXIST { return nil }
            throw StoreFileError.last("cannot create it", path)
        }
        do throws(StoreFileError) {
            try finish(fd, path, mode: newDatabase ? nil : mode)
        } catch {
            closeDescriptor(fd)
            throw error
        }
        return fd
    }

    /// Opens the file at `path` read-write, making it when there is none.
    func openOrCreate(_ path: String) throws(StoreFileError) -> Int32 {
        if let fd = try create(path) { return fd }
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            throw StoreFileError.last("cannot open it", path)
        }
        return fd
    }

    /// Makes the folder at `path` unless there is one.
    func createFolder(_ path: String) throws(StoreFileError) {
        guard mkdir(path, folderMode) == 0 else {
            if errno == EEXIST { return }
            throw StoreFileError.last("cannot create it", path)
        }
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw StoreFileError.last("cannot open it", path)
        }
        defer { closeDescriptor(fd) }
        try finish(fd, path, mode: folderMode)
    }

    /// Gives the new file `fd` its bits (exactly: the umask does not apply), group, owner and class.
    private func finish(_ fd: Int32, _ path: String, mode: mode_t?) throws(StoreFileError) {
        if let mode { _ = fchmod(fd, mode) }
        // As SQLite: the group when this process may give it, the owner when it runs as root.
        if owner != nil || group != nil { _ = fchown(fd, owner ?? uid_t.max, group ?? gid_t.max) }
        guard hk_set_protection_class(fd, protection.protectionClass) == 0 else {
            throw StoreFileError.last("cannot set its data protection (\(protection))", path)
        }
    }
}
