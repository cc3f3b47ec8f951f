import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The proof that a run is alive: an exclusive `flock` on a lock file of its own, held for the life
/// of the process, or until the run is suspended (`SignalCenter.suspend`: the descriptor is closed,
/// the file stays for a taker, and `retake` locks it again on resume). The kernel releases it when the process dies however it dies (kill -9 included),
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

    /// Creates the lock file of a new run (and its folder, when there is none) with `maker`, and locks it.
    init(runID: String, directory: String, maker: StoreFileMaker) throws(SignalError) {
        path = Self.path(of: runID, in: directory)
        let fd = try Self.openOrCreate(path, in: directory, maker: maker)
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let reason = Self.lastError()
            close(fd)
            throw .runLock(path: path, reason: "cannot lock it: \(reason)")
        }
        descriptor = fd
    }

    /// Opens the lock file at `path`, making it (and `directory`, when there is none) with `maker`.
    private static func openOrCreate(
        _ path: String, in directory: String, maker: StoreFileMaker
    ) throws(SignalError) -> Int32 {
        do throws(StoreFileError) {
            try maker.createFolder(directory)
            return try maker.openOrCreate(path)
        } catch {
            throw .runLock(path: error.path, reason: error.reason)
        }
    }

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Locks the lock file of a suspended run again (creating it with `maker` when it is gone): while
    /// another process holds it (taking the run over), waits for it, at most `patience`. A file that
    /// was removed or replaced while this process waited for its lock is opened again at the path.
    static func retake(
        runID: String, directory: String, maker: StoreFileMaker, patience: Duration
    ) async throws(SignalError) -> RunLockFile {
        let path = path(of: runID, in: directory)
        let started = ContinuousClock.now
        while true {
            let fd = try openOrCreate(path, in: directory, maker: maker)
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

    /// Releases the lock and removes the file (a clean end of the run), unless the path names
    /// another file by now (its folder was removed, and another process made a file there).
    func release() {
        if isIntact { unlink(path) }
        close(descriptor)
    }

    /// Whether the path still names the file this object holds locked (the file or its folder may
    /// have been removed, or replaced, by someone else).
    var isIntact: Bool {
        Self.names(path, descriptor)
    }

    /// Closes the descriptor without removing the file at the path: the file is no longer this one,
    /// or the run is suspended (its lock is free for a process that takes it over).
    func abandon() {
        close(descriptor)
    }

    /// Whether the run of the lock file at `path` is gone. When it is, `whileDead` runs while this
    /// process holds the run's lock, and the file is removed afterwards.
    ///
    /// A missing file (the run ended cleanly, never got further than its lock, or its file or
    /// folder was removed while it runs) is made with `maker` and locked first: a live run whose
    /// file was removed makes it again only while it is recorded, in a transaction of its own
    /// (`SQLiteSignalStore.start`), so either that run holds the lock again before the takeover
    /// tests it (and is left alone), or it finds its file locked, and then its record gone, and
    /// carries on as a new run.
    static func ifDead<T>(
        _ path: String, maker: StoreFileMaker, _ whileDead: () async throws(SignalError) -> T
    ) async throws(SignalError) -> T? {
        var fd = open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 {
            guard errno == ENOENT else {
                throw .runLock(path: path, reason: "cannot open it to test the run: \(StoreFiles.explain(errno, path))")
            }
            do throws(StoreFileError) {
                try maker.createFolder((path as NSString).deletingLastPathComponent)
                fd = try maker.openOrCreate(path)
            } catch {
                throw .runLock(path: error.path, reason: "cannot make it to take the run over: \(error.reason)")
            }
        }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            guard errno == EWOULDBLOCK else {
                throw .runLock(path: path, reason: "cannot test its lock: \(lastError())")
            }
            return nil
        }
        // Removed whether or not the takeover went through: a run without a lock file is gone.
        defer { if names(path, fd) { unlink(path) } }
        return try await whileDead()
    }

    /// Whether `path` names the file open as `descriptor`.
    private static func names(_ path: String, _ descriptor: Int32) -> Bool {
        var named = stat()
        var held = stat()
        guard stat(path, &named) == 0, fstat(descriptor, &held) == 0 else { return false }
        return named.st_dev == held.st_dev && named.st_ino == held.st_ino
    }

    static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
