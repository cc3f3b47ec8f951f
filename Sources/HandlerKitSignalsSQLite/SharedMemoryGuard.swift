import CHandlerKitDarwinShim
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a connection away from its `-shm` file once that file is made immutable (`chattr +i`,
/// `chflags uchg`).
///
/// SQLite maps `<file>-shm` into memory and writes it at every transaction, reads included, and when
/// the connection closes. Once the file is immutable, the kernel answers the first write to a page of
/// it that was flushed since with SIGBUS, which kills the process. So the store asks this guard before
/// each transaction (one `ioctl` on a descriptor held open) and, when the file is immutable, throws
/// `SignalError.storeReadOnly` naming it instead, and never closes the connection (a process exits
/// without closing it). A file made immutable between the check and SQLite's write still kills the
/// process; that window is one transaction's first microseconds.
final class SharedMemoryGuard: Sendable {
    /// The `-shm` file.
    let path: String
    /// A read-only descriptor of the `-shm` file the connection maps (-1 when it could not be opened).
    private let descriptor: Int32

    init(path: String) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
    }

    deinit {
        if descriptor >= 0 { closeDescriptor(descriptor) }
    }

    /// Whether the `-shm` file cannot be written through its mapping any more.
    var isFrozen: Bool {
        descriptor >= 0 && hk_is_frozen(descriptor) == 1
    }

    /// Throws `SharedMemoryFrozen` when the `-shm` file is immutable.
    func check() throws {
        if isFrozen { throw SharedMemoryFrozen(path: path) }
    }
}

/// A transaction refused because the store's `-shm` file is immutable (see `SharedMemoryGuard`);
/// `SQLiteSignalStore.signalError` makes it `SignalError.storeReadOnly` naming the file.
struct SharedMemoryFrozen: Error {
    let path: String
}
