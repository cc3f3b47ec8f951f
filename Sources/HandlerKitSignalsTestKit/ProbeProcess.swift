#if os(macOS) || os(Linux)
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a probe executable as a child process, its standard output and error to a file, and waits
/// for it without blocking a thread of Swift's cooperative pool. The process checks run theirs with
/// it, and so do this package's tests.
package enum ProbeProcess {
    /// How a probe process ended.
    package struct Outcome: Sendable {
        package var status: Int32
        /// Whether it died of SIGKILL (at an injected point).
        package var killed: Bool
        package var output: String

        package var lines: [Substring] { output.split(separator: "\n") }
    }

    /// Why a probe could not be started: what went wrong, with the file or executable.
    package struct LaunchFailure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Starts `executable` with `arguments`, its output to the file `output` (made empty), without
    /// waiting for it.
    ///
    /// - Throws: `LaunchFailure` when the output file cannot be made or the process cannot start.
    package static func start(_ executable: URL, _ arguments: [String], output: String) throws -> Process {
        guard FileManager.default.createFile(atPath: output, contents: nil) else {
            throw LaunchFailure(description: "cannot create the probe's output file \(output)")
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        defer { try? log.close() }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw LaunchFailure(
                description: "cannot start the probe \(executable.path(percentEncoded: false)): \(error)")
        }
        return process
    }

    /// Waits for `process` to end, in a thread of its own. One still running after `limit` is
    /// killed (SIGKILL), so that a check waiting for a probe that never ends (one that waits for a
    /// post that failed) fails on what it then finds instead of hanging.
    package static func finish(_ process: Process, within limit: Duration = .seconds(600)) async {
        let deadline = Task {
            try await Task.sleep(for: limit)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
        deadline.cancel()
    }

    /// Runs `executable` with `arguments` and waits for it; its output goes through a file in
    /// `folder`, removed afterwards.
    package static func run(_ executable: URL, _ arguments: [String], folder: String) async throws -> Outcome {
        let output = folder + "/probe-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = try start(executable, arguments, output: output)
        await finish(process)
        return Outcome(
            status: process.terminationStatus,
            killed: process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL,
            output: (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }
}
#endif
