#if SignalsDashboard
import Foundation
import SignalsTestSupport
import TestWaiting

/// The built `handlerkit-dashboard` serving a store on a free loopback port, until stopped.
struct DashboardServer {
    let process: Process
    /// Where it serves: `http://127.0.0.1:PORT`.
    let base: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts the dashboard on `store` with `arguments` after the store, and returns once it says
    /// where it listens. Its output goes to files in `folder`.
    static func start(store: String, _ arguments: [String] = [], folder: String) async throws -> DashboardServer {
        let executable = try executable()
        let output = folder + "/dashboard-\(UUID().uuidString).out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        _ = FileManager.default.createFile(atPath: output + ".err", contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = [store, "--port", "0"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HANDLERKIT_DASHBOARD_TOKEN"] = nil
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output + ".err"))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var base: String?
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        do {
            try await TestWait.until(
                "the dashboard to say where it listens",
                seen: {
                    "its output \(read(output).debugDescription), errors \(read(output + ".err").debugDescription)"
                }
            ) {
                let text = read(output)
                if let range = text.range(of: "http://127.0.0.1:"),
                    let end = text[range.upperBound...].firstIndex(of: "/")
                {
                    base = "http://127.0.0.1:" + text[range.upperBound..<end]
                    return true
                }
                guard process.isRunning else {
                    throw Failure(
                        description:
                            "the dashboard did not start: it exited with status \(process.terminationStatus); its errors: \(read(output + ".err"))"
                    )
                }
                return false
            }
        } catch {
            if process.isRunning { process.terminate() }
            throw error
        }
        guard let base else { throw Failure(description: "the dashboard did not start") }
        return DashboardServer(process: process, base: base)
    }

    /// The built dashboard, found next to the test bundle.
    static func executable() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appending(path: "handlerkit-dashboard", directoryHint: .notDirectory)
            if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) {
                return candidate
            }
            directory = directory.deletingLastPathComponent()
        }
        throw Failure(description: "handlerkit-dashboard not found next to the tests")
    }

    /// Stops it (SIGTERM) and waits for it to end.
    func stop() async {
        process.terminate()
        await Probe.finish(process)
    }
}
#endif
