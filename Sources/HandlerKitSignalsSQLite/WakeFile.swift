import CHandlerKitDarwinShim
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cross-process wake-ups for one store, without polling, through `CHandlerKitDarwinShim`:
///
/// - Apple platforms: a Darwin notification named after the store (`notify_post`), received through
///   `notify_register_file_descriptor`, the convention there.
/// - Linux: every process watches a small wake file next to the database with inotify; a process
///   that changed something writes one byte into it, which wakes every watcher at once. A wake file
///   that is deleted or replaced is noticed by both sides: a writer opens the file at the path for
///   each wake-up, a watcher makes it again if needed, watches it again, wakes its center (a wake-up
///   may have gone to the old file) and logs it once.
///
/// A listener waits on its descriptor with `poll` in a thread of its own, so an idle process costs
/// nothing until a notification arrives (or its next retry is due). No descriptor of the wake file
/// stays open: a writer's lasts one call, a watcher's inotify watch holds none.
enum WakeFile {
    /// Wakes every listener of the store whose wake file is `path`. A wake-up that cannot be sent
    /// (no permission to write the wake file) leaves the other processes to their next retry.
    static func notify(_ path: String) {
        _ = hk_notify_post(path)
    }
}

/// `close(2)`, callable where a method named `close` hides it.
func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}

/// A `SignalWakeListener` of a store's wake-ups (see `WakeFile`).
final class WakeFileListener: SignalWakeListener {
    private struct State {
        var woken = false
        var closed = false
        var waiter: CheckedContinuation<Void, Never>?
        var deadline: ContinuousClock.Instant?
    }

    private let state = Locked(State())
    private let path: String
    private let maker: StoreFileMaker
    private let logger: Logger?
    private let notifyFD: Int32
    /// The registration (on Linux, the watch of the wake file: changed only by the listener's thread).
    private let token: Locked<Int32>
    /// Written to interrupt `poll` when the deadline changes or the listener closes.
    private let interruptFDs: (read: Int32, write: Int32)

    /// Registers for the wake-ups of the store whose wake file is `path`, making the wake file with
    /// `maker` where one is used.
    init(path: String, maker: StoreFileMaker, logger: Logger?) throws(SignalError) {
        self.path = path
        self.maker = maker
        self.logger = logger
        if HK_NOTIFY_USES_WAKE_FILE != 0 {
            do throws(StoreFileError) {
                if let fd = try maker.create(path) { closeDescriptor(fd) }
            } catch {
                throw .storeUnavailable(path: error.path, reason: "cannot make the wake file: \(error.reason)")
            }
        }
        var fd: Int32 = -1
        var token: Int32 = 0
        guard hk_notify_register_file_descriptor(path, &fd, &token) == 0 else {
            throw .storeUnavailable(
                path: path, reason: "cannot register for the store's wake-ups: \(StoreFiles.explain(errno, path))")
        }
        notifyFD = fd
        self.token = Locked(token)
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            let reason = RunLockFile.lastError()
            hk_notify_cancel(fd, token)
            throw .storeUnavailable(path: path, reason: "pipe failed: \(reason)")
        }
        for descriptor in pipeFDs {
            _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
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
        var buffer = [UInt8](repeating: 0, count: 64)
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
            // A listener being closed does not make the wake file again (its store's folder may be
            // going away with it).
            if notified, hk_notify_drain(notifyFD) == 1, !state.withLock({ $0.closed }) { rewatch() }

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
        hk_notify_cancel(notifyFD, token.withLock { $0 })
        closeDescriptor(interruptFDs.read)
        closeDescriptor(interruptFDs.write)
    }

    /// After the wake file was deleted or moved: makes it again and watches the file at the path,
    /// logged once per loss. (An attribute change of the same file is no loss.)
    private func rewatch() {
        var problem: String?
        do throws(StoreFileError) {
            if let fd = try maker.create(path) { closeDescriptor(fd) }
        } catch {
            problem = error.reason
        }
        var current = token.withLock { $0 }
        let watched = hk_notify_rewatch(path, notifyFD, &current)
        let code = errno
        token.withLock { $0 = current }
        switch watched {
        case 0:
            return
        case 1:
            logger?.info(
                "the wake file was deleted or replaced; made it again and watching it again",
                metadata: ["handlerkit.file": .string(path)])
        default:
            let reason = problem ?? StoreFiles.explain(code, path)
            logger?.info(
                "the wake file was deleted and cannot be made again: other processes' posts wake this one only at its next retry",
                metadata: ["handlerkit.file": .string(path), SignalLogKey.error: .string(reason)])
        }
    }
}
