import Foundation
import Testing

/// `handlerkit-demo` run as a user runs it: it must start a second OS process that rebuilds the
/// handlers from the file and uses them.
@Suite struct DemoTests {
    /// The demo next to the test bundle in the build folder (the test target depends on it).
    static let executable: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appending(path: "handlerkit-demo", directoryHint: .notDirectory)
            if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    /// `[first process, pid 12] text` → (`first process`, 12, `text`).
    static func parse(_ line: Substring) -> (role: String, pid: Int32, text: Substring)? {
        guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return nil }
        let parts = line[line.index(after: line.startIndex)..<close].split(separator: ", pid ")
        guard parts.count == 2, let pid = Int32(parts[1]) else { return nil }
        return (String(parts[0]), pid, line[line.index(after: close)...].dropFirst())
    }

    @Test func secondProcessRebuildsCallsAndInvalidates() async throws {
        let executable = try #require(Self.executable, "handlerkit-demo not found next to the test bundle")
        let folder = FileManager.default.temporaryDirectory.appending(path: "handlerkit-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "handlers.jsonl")

        let run = try await Subprocess.run(executable, ["--file", file.path(percentEncoded: false)], timeLimit: 120)
        #expect(run.status == 0, "\(run.output)")
        let steps = run.lines.compactMap(Self.parse)
        let first = steps.filter { $0.role == "first process" }
        let second = steps.filter { $0.role == "second process" }
        let firstPID = try #require(first.first?.pid)
        let secondPID = try #require(second.first?.pid, "the second process printed nothing:\n\(run.output)")
        #expect(firstPID != secondPID)
        #expect(Set(first.map(\.pid)) == [firstPID] && Set(second.map(\.pid)) == [secondPID])

        func said(_ lines: [(role: String, pid: Int32, text: Substring)], _ text: String) -> Bool {
            lines.contains { $0.text.contains(text) }
        }
        #expect(said(first, "Wrote 4 handlers as JSON"))
        #expect(said(first, "Second process started with pid \(secondPID)"))
        #expect(said(second, "Started by the first process (parent pid \(firstPID))"))
        for id in ["Greeter.greet", "Mailbox.deliver", "Downloads.fetch", "Upload.progress"] {
            #expect(said(second, "Rebuilt from JSON: Handler(\(id)"), "\(run.output)")
        }
        #expect(said(second, "call Greeter.greet with greeting: \"Welcome back\" (generated typed call)"))
        for ran in [
            "handler Greeter.greet ran: Welcome back, Ada!",
            "handler Mailbox.deliver ran: put \"Welcome to HandlerKit\" (urgent) into the mailbox of ada",
            "handler Downloads.fetch ran: fetched https://example.com/report.pdf (attempt 1, async)",
            "handler Upload.progress ran: report.pdf is 40% uploaded",
            "handler Upload.cancelled ran: upload of report.pdf cancelled: user pressed cancel",
            "calling the invalidated upload handler -> HandlerError: handler 'Upload.progress' has been invalidated",
            "All steps passed",
        ] {
            #expect(said(second, ran), "missing '\(ran)' in:\n\(run.output)")
        }
        #expect(
            run.lines.last?.hasSuffix("Done: handlers made here were rebuilt and called in another process.") == true)

        let documents = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(documents.count == 4)
        #expect(documents.allSatisfy { $0.hasPrefix("{\"bound\":{") && $0.hasSuffix("\"version\":1}") })
    }

    @Test func failedStepExitsNonZero() async throws {
        let executable = try #require(Self.executable, "handlerkit-demo not found next to the test bundle")
        let missing = FileManager.default.temporaryDirectory.appending(path: "no-such-\(UUID().uuidString).jsonl")
        let run = try await Subprocess.run(
            executable, ["--replay", missing.path(percentEncoded: false)], timeLimit: 60)
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("[second process, pid "), "\(run.output)")
        #expect(run.output.contains("error:"), "\(run.output)")
    }
}
