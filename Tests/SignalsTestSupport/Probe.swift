import Foundation
import HandlerKitSignalsTestKit

/// Runs `handlerkit-signals-probe` (built next to the test bundle: the test target depends on it).
package enum Probe {
    /// The probe next to the test bundle in the build folder.
    package static let executable: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appending(path: "handlerkit-signals-probe", directoryHint: .notDirectory)
            if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    package typealias Outcome = ProbeProcess.Outcome

    package struct Failure: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// Starts the probe with `arguments` (output to a file) without waiting for it.
    package static func start(_ arguments: [String], output: String) throws -> Process {
        try ProbeProcess.start(try located(), arguments, output: output)
    }

    /// Runs the probe with `arguments` and waits for it (without blocking a thread of the pool).
    package static func run(_ arguments: [String], folder: String) async throws -> Outcome {
        try await ProbeProcess.run(try located(), arguments, folder: folder)
    }

    /// The probe, or `Failure` when it was not built.
    private static func located() throws -> URL {
        guard let executable else {
            throw Failure(description: "handlerkit-signals-probe not found next to the test bundle")
        }
        return executable
    }

    /// Whether every thread of `process` is stopped (by SIGSTOP), as `/proc` tells. A stop signal
    /// reaches the threads of a process one by one, so the main thread alone can be stopped while
    /// another still runs.
    package static func isStopped(_ process: Process) -> Bool {
        let tasks = "/proc/\(process.processIdentifier)/task"
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks), !threads.isEmpty else {
            return false
        }
        return threads.allSatisfy { thread in
            guard let stat = try? String(contentsOfFile: "\(tasks)/\(thread)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("T")
        }
    }

    /// Waits for `process` to end.
    package static func finish(_ process: Process) async {
        await ProbeProcess.finish(process)
    }
}
