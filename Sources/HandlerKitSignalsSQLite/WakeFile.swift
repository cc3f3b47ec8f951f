import Foundation
import HandlerKit
import HandlerKitSignals
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cross-process wake-ups for one store, without polling.
///
/// - Linux: every process watches a small wake file next to the database with inotify; a process
///   that changed something writes one byte into it, which wakes every watcher at once. A wake file
///   that is deleted or replaced is noticed by both sides: a writer opens the file at the path again,
///   a watcher makes it again if needed, watches it again, wakes its center (a wake-up may have gone
///   to the old file) and logs it once.
/// - Apple platforms: a Darwin notification named after the store (`notify_post`), received through
///   `notify_register_file_descriptor`, the convention there.
///
/// A listener waits on its descriptor with `poll` in a thread of its own, so an idle process costs
/// nothing until a notification arrives (or its next retry is due).
enum WakeFile {
    /// Wakes every listener of the store whose wake file is `path`.
    static func notify(_ path: String) {
        #if canImport(Darwin)
        notify_post(notificationName(path))
        #else
        poster.write(to: path)
        #endif
    }

    #if canImport(Darwin)
    static func notificationName(_ path: String) -> String {
        "org.handlerkit.signals.\(path.utf8.reduce(UInt64(1469598103934665603)) { ($0 ^ UInt64($1)) &* 1099511628211 })"
    }
    #else
    /// The descriptor this process writes wake-ups with (opened on first use).
    private static let poster = Poster()

    private final class Poster: Sendable {
        private let descriptors = Locked<[String: Int32]>([:])

        func write(to path: String) {
            descriptors.withLock { descriptors in
                var fd = descriptors[path] ?? -1
                if fd >= 0 && WakeFile.isUnlinked(fd) {
                    closeDescriptor(fd)
                    fd = -1
                }
                if fd < 0 { fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600) }
                guard fd >= 0 else { return }
                var byte: UInt8 = 1
                if pwrite(fd, &byte, 1, 0) == 1 {
                    descriptors[path] = fd
                } else {
                    closeDescriptor(fd)
                    descriptors[path] = nil
                }
            }
        }
    }

    /// Whether the file open as `fd` has been deleted (or replaced by another at its path).
    static func isUnlinked(_ fd: Int32) -> Bool {
        var status = stat()
        return fstat(fd, &status) == 0 && status.st_nlink == 0
    }
    #endif
}

/// `close(2)`, callable where a method named `close` hides it.
func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}

/// A `SignalWakeListener` on a wake file (see `WakeFile`).
final class WakeFileListener: SignalWakeListener {
    private struct State {
        var woken = false
        var closed = false
        var waiter: CheckedContinuation<Void, Never>?
        var deadline: ContinuousClock.Instant?
    }

    private let state = Locked(State())
    private let notifyFD: Int32
    #if !canImport(Darwin)
    private let path: String
    private let logger: Logger?
    /// The file being watched, and its inotify watch (changed only by the listener's thread).
    private let watched: Locked<(watch: Int32, device: UInt64, inode: UInt64)>
    #endif
    /// Written to interrupt `poll` when the deadline changes or the listener closes.
    private let interruptFDs: (read: Int32, write: Int32)
    #if canImport(Darwin)
    private let token: Int32
    #endif

    init(path: String, logger: Logger?) throws(SignalError) {
        #if canImport(Darwin)
        var fd: Int32 = -1
        var token: Int32 = 0
        guard notify_register_file_descriptor(WakeFile.notificationName(path), &fd, 0, &token) == 0 else {
            throw .storeUnavailable(path: path, reason: "cannot register for Darwin notifications")
        }
        self.token = token
        #else
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else {
            throw .storeUnavailable(path: path, reason: "inotify_init1 failed: \(RunLockFile.lastError())")
        }
        guard let watched = Self.watch(path, with: fd) else {
            let reason = RunLockFile.lastError()
            closeDescriptor(fd)
            throw .storeUnavailable(path: path, reason: "cannot watch the wake file: \(reason)")
        }
        self.path = path
        self.logger = logger
        self.watched = Locked(watched)
        #endif
        notifyFD = fd
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            closeDescriptor(fd)
            throw .storeUnavailable(path: path, reason: "pipe failed: \(RunLockFile.lastError())")
        }
        for descriptor in pipeFDs { _ = fcntl(descriptor, F_SETFL, O_NONBLOCK) }
        interruptFDs = (pipeFDs[0], pipeFDs[1])
        let thread = Thread { [self] in self.watch() }
        thread.name = "HandlerKitSignals.wake"
        thread.start()
    }

    func next(deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = state.withLock { state -> Bool in
                if state.woken || state.closed || deadline <= .now {
                    state.woken = false
                    return false
                }
                state.waiter = continuation
                state.deadline = deadline
                return true
            }
            if waits { interrupt() } else { continuation.resume() }
        }
    }

    func close() {
        let wasClosed = state.withLock { state -> Bool in
            defer { state.closed = true }
            return state.closed
        }
        if !wasClosed { interrupt() }
    }

    private func interrupt() {
        var byte: UInt8 = 1
        _ = write(interruptFDs.write, &byte, 1)
    }

    /// The listener's thread: waits for a notification, an interruption or the deadline.
    private func watch() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let (closing, timeout) = state.withLock { state -> (CheckedContinuation<Void, Never>??, Int32) in
                if state.closed {
                    defer { state.waiter = nil }
                    return (.some(state.waiter), -1)
                }
                guard let deadline = state.deadline, state.waiter != nil else { return (nil, -1) }
                let remaining = ContinuousClock.now.duration(to: deadline)
                let milliseconds =
                    remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
                return (nil, Int32(clamping: max(0, milliseconds + 1)))
            }
            if let closing {
                closing?.resume()
                break
            }

            var fds = [
                pollfd(fd: notifyFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: interruptFDs.read, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&fds, 2, timeout)
            if fds[1].revents != 0 { while read(interruptFDs.read, &buffer, buffer.count) > 0 {} }
            // A notification, or the loss of the wake file (a wake-up may have gone to the old one):
            // the center looks for due deliveries either way.
            let notified = fds[0].revents != 0
            if notified { drainNotifications(&buffer) }

            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if notified { state.woken = true }
                guard let waiter = state.waiter, state.woken || (state.deadline.map { $0 <= .now } ?? false) else {
                    return nil
                }
                state.waiter = nil
                state.deadline = nil
                state.woken = false
                return waiter
            }
            continuation?.resume()
        }
        #if canImport(Darwin)
        notify_cancel(token)
        #else
        closeDescriptor(notifyFD)
        #endif
        closeDescriptor(interruptFDs.read)
        closeDescriptor(interruptFDs.write)
    }

    /// Reads the pending notifications, and watches the wake file again if it was lost.
    private func drainNotifications(_ buffer: inout [UInt8]) {
        #if canImport(Darwin)
        while read(notifyFD, &buffer, buffer.count) > 0 {}
        #else
        // Each event: wd (4 bytes), mask (4), cookie (4), len (4), then `len` bytes of name.
        var lost = false
        while true {
            let count = read(notifyFD, &buffer, buffer.count)
            guard count > 0 else { break }
            var offset = 0
            while offset + 16 <= count {
                let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
                let length = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) }
                if mask & Self.lossEvents != 0 { lost = true }
                offset += 16 + Int(length)
            }
        }
        if lost { rewatchIfReplaced() }
        #endif
    }

    #if !canImport(Darwin)
    /// What inotify reports when the watched file is deleted or moved (its link count changes:
    /// IN_ATTRIB; the last descriptor of it closes: IN_DELETE_SELF; the watch ends: IN_IGNORED).
    private static let lossEvents = UInt32(IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)

    /// Creates the wake file at `path` if there is none and watches it with `inotify`.
    private static func watch(_ path: String, with inotify: Int32) -> (watch: Int32, device: UInt64, inode: UInt64)? {
        let created = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if created >= 0 { closeDescriptor(created) }
        let events = UInt32(IN_MODIFY) | lossEvents
        let watch = inotify_add_watch(inotify, path, events)
        var status = stat()
        guard watch >= 0, stat(path, &status) == 0 else { return nil }
        return (watch, UInt64(status.st_dev), UInt64(status.st_ino))
    }

    /// After a wake file was deleted or moved: makes it again and watches the file at the path,
    /// logged once per loss. (An attribute change of the same file is no loss.)
    private func rewatchIfReplaced() {
        let current = watched.withLock { $0 }
        var status = stat()
        if stat(path, &status) == 0, UInt64(status.st_dev) == current.device, UInt64(status.st_ino) == current.inode {
            return
        }
        _ = inotify_rm_watch(notifyFD, current.watch)
        guard let new = Self.watch(path, with: notifyFD) else {
            logger?.error(
                "signal store wake file \(path) was deleted and cannot be made again (\(RunLockFile.lastError())); other processes' posts wake this one only at its next retry"
            )
            return
        }
        watched.withLock { $0 = new }
        logger?.warning(
            "signal store wake file \(path) was deleted or replaced; made it again and watching it again")
    }
    #endif
}
