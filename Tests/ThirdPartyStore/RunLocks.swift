import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the runs of a ``JSONFileSignalStore`` prove they are alive: each run holds an exclusive `flock`
/// on a lock file of its own, `<folder>/runs/<runID>.lock`, from `beginRun` until `endRun` (or
/// `suspendRun`). The kernel releases it when the process dies, however it dies, so another process
/// tests a run's liveness directly: if it can take the run's lock, the run is gone.
///
/// `flock` locks belong to an open file description: a second descriptor of the same file, even in
/// the same process, cannot take a lock one holds. So a store object that holds a run's lock sees the
/// run alive, and so does every other store object, of this process or another.
final class RunLocks: @unchecked Sendable {
    /// The folder of the lock files.
    let folder: String
    private let lock = NSLock()
    /// The descriptors of the lock files this object holds locked, by run; guarded by `lock`.
    private var held: [String: Int32] = [:]

    init(folder: String) {
        self.folder = folder
    }

    deinit {
        for descriptor in held.values { close(descriptor) }
    }

    /// The lock file of `runID`.
    func path(of runID: String) -> String {
        "\(folder)/\(runID).lock"
    }

    /// Locks the lock file of `runID` (making it when missing), without waiting: a run that another
    /// descriptor holds is alive, and `runLock` is thrown.
    func take(_ runID: String) throws(SignalError) {
        let descriptor = try lockedDescriptor(runID)
        guard let descriptor else {
            throw .runLock(path: path(of: runID), reason: "another process holds it")
        }
        keep(descriptor, for: runID)
    }

    /// Locks the lock file of a suspended run again, waiting at most `patience` while a taker holds it.
    func retake(_ runID: String, patience: Duration) async throws(SignalError) {
        let started = ContinuousClock.now
        while true {
            // A file removed by a taker while this process waited for it is opened again at the path.
            if let descriptor = try lockedDescriptor(runID) {
                if names(path(of: runID), descriptor) { return keep(descriptor, for: runID) }
                close(descriptor)
            }
            guard started.duration(to: .now) < patience else {
                throw .runLock(path: path(of: runID), reason: "another process held it for \(patience)")
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Releases the lock of `runID` that this object holds; with `removingFile`, removes its file
    /// first (a run that ended cleanly).
    func release(_ runID: String, removingFile: Bool) {
        let descriptor = locked { held.removeValue(forKey: runID) }
        guard let descriptor else { return }
        if removingFile, names(path(of: runID), descriptor) { unlink(path(of: runID)) }
        close(descriptor)
    }

    /// Releases every lock this object holds without ending the runs, as a process that dies does.
    func releaseAll() {
        let all = locked {
            defer { held.removeAll() }
            return Array(held.values)
        }
        for descriptor in all { close(descriptor) }
    }

    /// When `runID` is gone (no one holds its lock), runs `body` while holding the lock, which keeps
    /// other takers out, and removes the lock file afterwards (a run without a lock file is gone);
    /// `nil` while the run is alive.
    func whileGone<Result>(
        _ runID: String, _ body: () throws(SignalError) -> Result
    ) throws(SignalError) -> Result? {
        guard let descriptor = try lockedDescriptor(runID) else { return nil }
        defer {
            if names(path(of: runID), descriptor) { unlink(path(of: runID)) }
            close(descriptor)
        }
        return try body()
    }

    /// Whether some descriptor, of this process or another, holds the lock of `runID`: the test
    /// takes the lock for a moment when it is free.
    func isHeld(_ runID: String) -> Bool {
        let descriptor = open(path(of: runID), O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }  // No lock file: the run is gone.
        defer { close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// A new descriptor of the lock file of `runID` (made, with its folder, when missing), locked
    /// exclusively; `nil` when another descriptor holds the lock.
    private func lockedDescriptor(_ runID: String) throws(SignalError) -> Int32? {
        let path = path(of: runID)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .runLock(path: path, reason: "cannot make its folder: \(error.localizedDescription)")
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .runLock(path: path, reason: "cannot open it: \(StoreFile.lastError())") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            guard code == EWOULDBLOCK else {
                throw .runLock(path: path, reason: "cannot lock it: \(String(cString: strerror(code)))")
            }
            return nil
        }
        return descriptor
    }

    /// `body` with `held` to itself.
    private func locked<Result>(_ body: () -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private func keep(_ descriptor: Int32, for runID: String) {
        let previous = locked { held.updateValue(descriptor, forKey: runID) }
        if let previous { close(previous) }
    }

    /// Whether `path` still names the file open as `descriptor` (a taker may have removed it).
    private func names(_ path: String, _ descriptor: Int32) -> Bool {
        var named = stat()
        var open = stat()
        guard stat(path, &named) == 0, fstat(descriptor, &open) == 0 else { return false }
        return named.st_dev == open.st_dev && named.st_ino == open.st_ino
    }
}
