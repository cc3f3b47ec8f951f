import Foundation
import Testing

/// The demo's signals step: an app process registers a durable consumer and exits, a sync process
/// posts the result, and the next app process runs the consumer's handler; nothing is left.
@Suite struct SignalsDemoTests {
    @Test func theNextAppProcessRunsTheConsumerOfTheAppProcessThatExited() async throws {
        let executable = try #require(DemoTests.executable, "handlerkit-demo not found next to the test bundle")
        let folder = FileManager.default.temporaryDirectory.appending(path: "handlerkit-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "handlers.jsonl").path(percentEncoded: false)

        let run = try await Subprocess.run(executable, ["--file", file], timeLimit: 120)
        #expect(run.status == 0, "\(run.output)")
        let steps = run.lines.compactMap(DemoTests.parse)
        let app = steps.filter { $0.role == "app process" }
        let sync = steps.filter { $0.role == "sync process" }
        let next = steps.filter { $0.role == "next app process" }
        let pids = Set([app.first?.pid, sync.first?.pid, next.first?.pid].compactMap { $0 })
        #expect(pids.count == 3, "three processes, one pid each:\n\(run.output)")
        #expect(app.contains { $0.text.hasPrefix("Exiting before the result arrives") })
        #expect(sync.contains { $0.text.hasPrefix("Posted revision 1: 1 consumer waits for it") })
        #expect(next.contains { $0.text.contains("took over 1 run that is gone, 1 durable consumer") })
        #expect(
            next.contains {
                $0.text.contains(
                    "handler UploadResult.finished ran: upload of report.pdf succeeded at /Documents/report.pdf")
            },
            "\(run.output)")
        #expect(
            next.contains {
                $0.text.hasPrefix("Delivered and completed; the consumer and the signal's record are gone")
            })
    }
}
