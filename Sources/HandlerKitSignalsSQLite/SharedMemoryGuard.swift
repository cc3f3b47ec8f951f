import CHandlerKitDarwinShim
import Foundation
import HandlerKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a connection away from a `-shm` file it can no longer use through its mapping.
///
/// SQLite maps `<file>-shm` into memory and reads and writes it at every transaction, and when the
/// connection closes. Two changes made to that file from outside turn the next access into SIGBUS,
/// which kills the process:
///
/// - The file made immutable (`chattr +i`, `chflags uchg`): the kernel answers the first write to a
///   page of it that was flushed since with SIGBUS. The guard then throws
///   `SignalError.storeReadOnly` naming it, and the connection is never closed (a process exits
///   without closing it).
/// - The file cut short (truncated by hand or by a tool that "cleans up" sidecar files): every access
///   past its new end is a SIGBUS. The guard extends it back to the largest size it was seen with;
///   the pages come back as zeros, from which SQLite rebuilds its index from the `-wal` file, as it
///   does after a crash. Logged as a warning.
///
/// The store asks the guard before each transaction (an `ioctl` and an `fstat` on a descriptor held
/// open). A change made between the check and SQLite's access still kills the process; that window
/// is one transaction's first microseconds.
///
/// The descriptor stays open as long as the connection: closing a descriptor of the file would drop
/// the POSIX locks SQLite holds on it in this process.
final class SharedMemoryGuard: Sendable {
    /// The `-shm` file.
    let path: String
    /// The descriptor of the `-shm` file the connection maps, read-write when the file allows it
    /// (-1 when it could not be opened), and the largest size the file was seen with: SQLite may
    /// have mapped it up to there.
    private let file = Locked<(descriptor: Int32, mappedSize: Int64)>((-1, 0))
    /// Told the size a cut file had and the size it was given back.
    private let restored: @Sendable (_ found: Int64, _ size: Int64) -> Void

    init(path: String, restored: @escaping @Sendable (_ found: Int64, _ size: Int64) -> Void) {
        self.path = path
        self.restored = restored
        refresh()
    }

    deinit {
        let descriptor = file.withLock { $0.descriptor }
        if descriptor >= 0 { closeDescriptor(descriptor) }
    }

    /// Opens the `-shm` file at the path when it is not the one this guard holds: called when the
    /// connection was opened again after every connection had been closed (a suspension), since the
    /// last one to close may have removed the file and the new one made it again. The descriptor of
    /// the old file is closed: no connection of this process maps it any more (closing a descriptor
    /// of the file a connection uses would drop SQLite's locks on it).
    func refresh() {
        file.withLock { file in
            var named = stat()
            var held = stat()
            guard stat(path, &named) == 0 else { return }
            if file.descriptor >= 0, fstat(file.descriptor, &held) == 0, held.st_dev == named.st_dev,
                held.st_ino == named.st_ino
            {
                return
            }
            var opened = open(path, O_RDWR | O_CLOEXEC)
            if opened < 0 { opened = open(path, O_RDONLY | O_CLOEXEC) }
            guard opened >= 0 else { return }
            if file.descriptor >= 0 { closeDescriptor(file.descriptor) }
            file = (opened, 0)
        }
    }

    /// Closes the descriptor, once the store's connection is closed (a suspension); ``refresh()``
    /// opens the file again with the next connection.
    func close() {
        file.withLock { file in
            if file.descriptor >= 0 { closeDescriptor(file.descriptor) }
            file = (-1, 0)
        }
    }

    /// Whether the `-shm` file cannot be written through its mapping any more.
    var isFrozen: Bool {
        file.withLock { $0.descriptor >= 0 && hk_is_frozen($0.descriptor) == 1 }
    }

    /// Throws `SharedMemoryFrozen` when the `-shm` file is immutable, and gives a file that was cut
    /// short its size back (`SharedMemoryCut` when it cannot).
    func check() throws {
        if isFrozen { throw SharedMemoryFrozen(path: path) }
        try restoreSize()
    }

    /// Extends the file back to the largest size it was seen with, when it is shorter now.
    private func restoreSize() throws {
        let cut = try file.withLock { file throws -> (found: Int64, size: Int64)? in
            var status = stat()
            guard file.descriptor >= 0, fstat(file.descriptor, &status) == 0 else { return nil }
            let size = Int64(status.st_size)
            if size >= file.mappedSize {
                file.mappedSize = size
                return nil
            }
            guard ftruncate(file.descriptor, off_t(file.mappedSize)) == 0 else {
                throw SharedMemoryCut(path: path, size: size, reason: String(cString: strerror(errno)))
            }
            return (size, file.mappedSize)
        }
        if let cut { restored(cut.found, cut.size) }
    }
}

/// A transaction refused because the store's `-shm` file is immutable (see `SharedMemoryGuard`);
/// `SQLiteSignalStore.signalError` makes it `SignalError.storeReadOnly` naming the file.
struct SharedMemoryFrozen: Error {
    let path: String
}

/// A transaction refused because the store's `-shm` file was cut short and could not be given its
/// size back (see `SharedMemoryGuard`); `SQLiteSignalStore.signalError` makes it
/// `SignalError.storeCorrupt` naming the file.
struct SharedMemoryCut: Error {
    let path: String
    let size: Int64
    let reason: String
}
