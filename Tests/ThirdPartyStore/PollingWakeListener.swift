import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wake-ups of a ``JSONFileSignalStore``, as simple as they come: a store that made deliveries
/// due appends a byte to the wake file beside the JSON file (emptying it now and then), and a
/// listener looks at that file's size and modification time every few milliseconds. Any change
/// since its last look is a wake-up. (A wake-up may be missed when the file is emptied and filled
/// back to the same size within one look; the center then finds the deliveries at its next pass.)
///
/// A store for production would use what its platform offers instead (the SQLite store uses
/// Darwin notifications and `inotify`); the center only needs ``SignalWakeListener``.
enum WakeFile {
    /// Wakes every listener of the file at `path`, of every process.
    static func notify(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return }  // A lost wake-up only delays deliveries to the next pass.
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_size >= 4096 {
            _ = ftruncate(descriptor, 0)
        } else {
            var byte: UInt8 = 1
            _ = write(descriptor, &byte, 1)
        }
    }

    /// What a listener compares: the file's size and modification time (`nil` while there is no file).
    struct Stamp: Equatable {
        var size: Int64
        var seconds: Int
        var nanoseconds: Int

        init?(_ path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            size = Int64(status.st_size)
            #if canImport(Darwin)
            (seconds, nanoseconds) = (Int(status.st_mtimespec.tv_sec), Int(status.st_mtimespec.tv_nsec))
            #else
            (seconds, nanoseconds) = (Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec))
            #endif
        }
    }
}

/// A listener that polls the wake file (``WakeFile``) every `interval`.
final class PollingWakeListener: SignalWakeListener, @unchecked Sendable {
    private let path: String
    private let interval: Duration
    private let lock = NSLock()
    /// What the last look saw, and whether the listener is closed; guarded by `lock`.
    private var seen: WakeFile.Stamp?
    private var closed = false

    init(path: String, interval: Duration = .milliseconds(10)) {
        self.path = path
        self.interval = interval
        seen = WakeFile.Stamp(path)
    }

    func next(deadline: ContinuousClock.Instant) async {
        while !Task.isCancelled {
            let (woken, isClosed) = look()
            if woken || isClosed { return }
            let now = ContinuousClock.now
            guard now < deadline else { return }
            try? await Task.sleep(for: min(interval, now.duration(to: deadline)))
        }
    }

    func close() {
        lock.lock()
        defer { lock.unlock() }
        closed = true
    }

    /// Whether the wake file changed since the last look (and remembers what it saw), and whether
    /// the listener is closed.
    private func look() -> (woken: Bool, closed: Bool) {
        let stamp = WakeFile.Stamp(path)
        lock.lock()
        defer { lock.unlock() }
        let woken = stamp != seen
        seen = stamp
        return (woken, closed)
    }
}
