import Foundation
import Testing

/// The demo's promise step: an app process awaits a durable promise that an extension process
/// fulfils by its id; the waiting task resumes with the value and the fallback does not run.
@Suite struct PromiseDemoTests {
    @Test func theAppProcessResumesWithTheValueTheExtensionDelivers() async throws {
        let executable = try #require(DemoTests.executable, "handlerkit-demo not found next to the test bundle")
        let folder = FileManager.default.temporaryDirectory.appending(path: "handlerkit-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "handlers.jsonl").path(percentEncoded: false)

        let run = try await Subprocess.run(executable, ["--file", file], timeLimit: 120)
        #expect(run.status == 0, "\(run.output)")
        let steps = run.lines.compactMap(DemoTests.parse)
        let app = steps.filter { $0.role == "promise app process" }
        let ext = steps.filter { $0.role == "promise extension process" }
        #expect(Set(app.map(\.pid)).count == 1 && Set(ext.map(\.pid)).count == 1, "\(run.output)")
        #expect(app.first?.pid != ext.first?.pid)
        #expect(ext.contains { $0.text.hasPrefix("The extension received the slot; fulfilling promise") })
        #expect(
            app.contains { $0.text == "The awaiting task resumed with https://upload.example/avatar.png" },
            "\(run.output)")
        #expect(
            run.lines.contains { $0.hasSuffix("the waiting app task received the value; its fallback did not run") })
    }
}
