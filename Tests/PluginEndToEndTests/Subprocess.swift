import Foundation
import TestWaiting

/// A finished child process: its exit status and everything it wrote (standard output and error,
/// interleaved as written).
struct Subprocess: Sendable {
    var status: Int32
    var output: String
    /// Whether it was stopped because it ran past its time limit.
    var timedOut: Bool

    /// The output's lines.
    var lines: [Substring] { output.split(separator: "\n") }

    /// Runs `executable` with `arguments` in `directory` and waits for it without blocking a thread of
    /// the cooperative pool. Output goes to a temporary file, so a chatty child never blocks on a
    /// full pipe. A child still running after `timeLimit` seconds (a bound against hangs, scaled by
    /// TestWait) is terminated.
    static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, timeLimit: TimeInterval
    ) async throws -> Subprocess {
        let logURL = FileManager.default.temporaryDirectory
            .appending(path: "handlerkit-e2e-\(UUID().uuidString).log", directoryHint: .notDirectory)
        guard FileManager.default.createFile(atPath: logURL.path(percentEncoded: false), contents: nil) else {
            throw SubprocessError(message: "cannot create \(logURL.path(percentEncoded: false))")
        }
        defer { try? FileManager.default.removeItem(at: logURL) }
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        let watch = TimeLimit()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in
                watch.finish()
                continuation.resume()
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            let pid = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit * TestWait.scale) {
                if watch.expire() { kill(pid, SIGTERM) }
            }
        }
        let output = try String(contentsOf: logURL, encoding: .utf8)
        return Subprocess(status: process.terminationStatus, output: output, timedOut: watch.expired)
    }

    /// Runs a command found on `PATH` (through `/usr/bin/env`).
    static func run(
        command: String, _ arguments: [String], in directory: URL? = nil, timeLimit: TimeInterval
    ) async throws -> Subprocess {
        try await run(URL(fileURLWithPath: "/usr/bin/env"), [command] + arguments, in: directory, timeLimit: timeLimit)
    }
}

/// Who came first: the child's end, or its time limit. Thread-safe.
private final class TimeLimit: @unchecked Sendable {
    private enum State { case running, finished, expired }

    private let lock = NSLock()
    private var state = State.running

    /// The child ended (and was reaped): from now on its pid must not be signalled.
    func finish() {
        lock.lock()
        if state == .running { state = .finished }
        lock.unlock()
    }

    /// The time limit passed; `true` if the child is still running, so it must be stopped.
    func expire() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if state == .running { state = .expired }
        return state == .expired
    }

    /// Whether the child was stopped for running too long.
    var expired: Bool {
        lock.lock()
        defer { lock.unlock() }
        return state == .expired
    }
}

/// A child process that could not be started.
struct SubprocessError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
