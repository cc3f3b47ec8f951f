import Foundation
import HandlerKitSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The proof that a run is alive: an exclusive `flock` on a lock file of its own, held for the life
/// of the process. The kernel releases it when the process dies however it dies (kill -9 included),
/// so another process tests a run's liveness directly: if it can take the lock, the run is gone.
///
/// Lock files are separate from the database files on purpose: closing any descriptor of a file drops
/// the process's POSIX locks on it, which would break SQLite's own locking; `flock` locks on other
/// files never interfere with it.
final class RunLockFile: Sendable {
    let path: String
    private let descriptor: Int32

    /// The lock file of `runID` in `directory`.
    static func path(of runID: String, in directory: String) -> String {
        "\(directory)/\(runID).lock"
    }

    /// Creates the lock file of a new run and locks it.
    init(runID: String, directory: String) throws(SignalError) {
        path = Self.path(of: runID, in: directory)
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw .runLock(path: directory, reason: "cannot create the folder of run lock files: \(Self.lastError())")
        }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .runLock(path: path, reason: "cannot create it: \(Self.lastError())") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let reason = Self.lastError()
            close(fd)
            throw .runLock(path: path, reason: "cannot lock it: \(reason)")
        }
        descriptor = fd
    }

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Locks the lock file of a suspended run again (creating it when it is gone): while another
    /// process holds it (taking the run over), waits for it, at most `patience`. A file that was
    /// removed or replaced while this process waited for its lock is opened again at the path.
    static func retake(runID: String, directory: String, patience: Duration) async throws(SignalError) -> RunLockFile {
        let path = path(of: runID, in: directory)
        let started = ContinuousClock.now
        while true {
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw .runLock(path: directory, reason: "cannot create the folder of run lock files: \(lastError())")
            }
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw .runLock(path: path, reason: "cannot create it: \(lastError())") }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                let file = RunLockFile(path: path, descriptor: fd)
                if file.isIntact { return file }
                file.abandon()
            } else {
                let code = errno
                close(fd)
                guard code == EWOULDBLOCK || code == EINTR else {
                    throw .runLock(path: path, reason: "cannot lock it: \(String(cString: strerror(code)))")
                }
            }
            guard started.duration(to: .now) < patience else {
                throw .runLock(
                    path: path,
                    reason: "another process held it for \(patience) (taking the suspended run over); try again")
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Releases the lock and removes the file (a clean end of the run).
    func release() {
        unlink(path)
        close(descriptor)
    }

    /// Whether the path still names the file this object holds locked (the file or its folder may
    /// have been removed, or replaced, by someone else).
    var isIntact: Bool {
        var named = stat()
        var held = stat()
        guard stat(path, &named) == 0, fstat(descriptor, &held) == 0 else { return false }
        return named.st_dev == held.st_dev && named.st_ino == held.st_ino
    }

    /// Closes the descriptor without removing the file at the path: the file is no longer this one,
    /// or the run is suspended (its lock is free for a process that takes it over).
    func abandon() {
        close(descriptor)
    }

    /// Whether the run of the lock file at `path` is gone. When it is, `whileDead` runs while this
    /// process holds the dead run's lock, and the file is removed afterwards.
    static func ifDead<T>(
        _ path: String, _ whileDead: () async throws(SignalError) -> T
    ) async throws(SignalError) -> T? {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 {
            // No lock file: the run ended cleanly, or never got further than its lock (a run creates
            // and locks its file before anything refers to it).
            guard errno == ENOENT else {
                throw .runLock(path: path, reason: "cannot open it to test the run: \(lastError())")
            }
            return try await whileDead()
        }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            guard errno == EWOULDBLOCK else {
                throw .runLock(path: path, reason: "cannot test its lock: \(lastError())")
            }
            return nil
        }
        let result = try await whileDead()
        unlink(path)
        return result
    }

    static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
