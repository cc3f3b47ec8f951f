#if SignalsDashboard
import Foundation
import SignalsTestSupport
import Testing

/// The dashboard's command line and a store it cannot open: a message and a non-zero status, before
/// anything listens (no browser needed).
@Suite("Signals: starting handlerkit-dashboard")
struct DashboardStartTests {
    let folder = TemporaryFolder()

    /// Runs the built dashboard with `arguments` until it ends.
    func run(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let executable = try DashboardServer.executable()
        let output = folder.path + "/out-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        _ = FileManager.default.createFile(atPath: output + ".err", contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output + ".err"))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        await Probe.finish(process)
        return (
            process.terminationStatus, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "",
            (try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? ""
        )
    }

    @Test func misuseAndStoresThatCannotBeOpenedAreSaid() async throws {
        let help = try await run(["--help"])
        #expect(help.status == 0 && help.output.contains("usage: handlerkit-dashboard STORE"))

        let misuses: [([String], String)] = [
            ([], "say which store"), (["a.sqlite", "--port", "http"], "--port 'http' is not a port number"),
            (["a.sqlite", "--token", "short"], "at least 8 characters"), (["a.sqlite", "--verbose"], "unknown option"),
            (["a.sqlite", "b.sqlite"], "one store only"), (["a.sqlite", "--host"], "--host needs a value"),
        ]
        for (arguments, message) in misuses {
            let outcome = try await run(arguments)
            #expect(outcome.status == 64, "\(arguments)")
            #expect(outcome.errors.contains(message), "\(arguments): \(outcome.errors)")
        }

        let missing = folder.path + "/nothing.sqlite"
        let outcome = try await run([missing, "--port", "0"])
        #expect(outcome.status == 1)
        #expect(outcome.errors.contains("there is no file there"), "\(outcome.errors)")
        #expect(!FileManager.default.fileExists(atPath: missing), "no store was made")
    }
}
#endif
