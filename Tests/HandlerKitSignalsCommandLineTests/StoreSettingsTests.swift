// The command line exists with its trait only (`swift test --traits SignalsCommandLine`, or
// `--enable-all-traits` as Scripts/test.sh runs).
#if SignalsCommandLine && PostgreSQL
import Foundation
import SignalsTestSupport
import Testing

/// Runs the built `handlerkit-signals` on PostgreSQL stores it cannot use: a server that cannot be
/// reached, and URLs that are wrong. What the operator reads: one short error that says what failed
/// and what to do, without the internal names of the libraries underneath.
@Suite("Signals: handlerkit-signals on a server it cannot reach, and on wrong URLs")
struct StoreSettingsTests {
    let folder = TemporaryFolder()

    /// Runs the built tool with `arguments`, standard input not a terminal.
    func tool(_ arguments: [String]) async throws -> (status: Int32, errors: String, took: Duration) {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var executable: URL?
        for _ in 0..<4 where executable == nil {
            let candidate = directory.appending(path: "handlerkit-signals", directoryHint: .notDirectory)
            if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) {
                executable = candidate
            }
            directory = directory.deletingLastPathComponent()
        }
        let process = Process()
        let url: URL = try #require(executable, "handlerkit-signals next to the test bundle")
        process.executableURL = url
        process.arguments = arguments
        let errors = folder.path + "/err-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        process.standardInput = FileHandle.nullDevice
        let started = ContinuousClock.now
        try process.run()
        await Probe.finish(process)
        return (
            process.terminationStatus, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "",
            started.duration(to: .now)
        )
    }

    /// Names of types and settings of the libraries underneath, which an operator cannot act on.
    static let internalNames = [
        "NIO", "PSQLError", "SingleConnectionFailure", "connectionErrors", "Options.reconnectFor", "errno",
    ]

    @Test func anUnreachableServerIsOneLineOfWaitingAndOneShortError() async throws {
        // Nothing listens on port 1: each try is refused at once.
        let outcome = try await tool([
            "status", "postgres://nobody@127.0.0.1:1/signals?schema=none", "--connect-timeout", "1.5",
        ])
        #expect(outcome.status != 0)
        let lines = outcome.errors.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "one line while waiting, then the error: \(lines)")
        #expect(!outcome.errors.contains("retrying"), "\(outcome.errors)")
        let waiting = lines.first ?? ""
        #expect(
            waiting.contains("the PostgreSQL server at 127.0.0.1:1 does not answer (Connection refused)")
                && waiting.contains("for up to 1.5 s"), "\(waiting)")
        let error = lines.last ?? ""
        #expect(error.hasPrefix("Error: "), "\(error)")
        for part in [
            "cannot reach the PostgreSQL server at 127.0.0.1:1", "Connection refused", "the store retries for 1.5 s",
            "--connect-timeout", "Check that the server runs",
        ] {
            #expect(error.contains(part), "\(part) in \(error)")
        }
        for name in Self.internalNames { #expect(!outcome.errors.contains(name), "\(name) in \(outcome.errors)") }
        // It tried for the time given (not the default of 10 s is checked by the message above).
        #expect(outcome.took >= .seconds(1.5), "\(outcome.took)")
    }

    @Test func aWrongURLIsASettingsErrorNamingItsPartWithoutTrying() async throws {
        let cases: [(url: String, says: String)] = [
            ("postgres://app:s3cret@db.invalid:notaport/app", "invalid port"),
            ("postgres://app:s3cret@db.invalid/app?sslmode=strict", "invalid sslmode"),
            ("postgres://db.invalid/app", "invalid user"),
            ("mysql://app:s3cret@db.invalid/app", "invalid scheme"),
        ]
        for (url, says) in cases {
            let outcome = try await tool(["status", url])
            #expect(outcome.status != 0, "\(url)")
            #expect(outcome.errors.contains(says), "\(url): \(outcome.errors)")
            #expect(!outcome.errors.contains("s3cret"), "\(url): \(outcome.errors)")
            // Not the error of a server that cannot be reached (nothing was tried).
            #expect(!outcome.errors.contains("cannot be opened"), "\(url): \(outcome.errors)")
            #expect(!outcome.errors.contains("does not answer"), "\(url): \(outcome.errors)")
        }
        let timeout = try await tool(["status", "postgres://app@db.invalid/app", "--connect-timeout", "0"])
        #expect(timeout.status == 64 && timeout.errors.contains("--connect-timeout takes seconds"), "\(timeout.errors)")
    }
}
#endif
