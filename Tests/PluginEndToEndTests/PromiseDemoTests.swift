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

    /// The promise step's two processes, many times and four pairs at once (a loaded machine): the
    /// app makes the promise, hands its id over and awaits it; the extension fulfils it as soon as
    /// it has the id, often before the app's wait begins. The app resumes with the value every time
    /// and its fallback never runs. `HANDLERKIT_PROMISE_DEMO_RUNS` sets how many runs (20).
    @Test func thePromiseStepNeverLosesTheValueToTheFallbackUnderLoad() async throws {
        let executable = try #require(DemoTests.executable, "handlerkit-demo not found next to the test bundle")
        let runs = ProcessInfo.processInfo.environment["HANDLERKIT_PROMISE_DEMO_RUNS"].flatMap { Int($0) } ?? 20
        let parallel = 4
        var failures: [String] = []
        try await withThrowingTaskGroup(of: String?.self) { group in
            var started = 0
            for _ in 0..<min(parallel, runs) {
                let index = started
                group.addTask { try await Self.promiseStep(executable, run: index) }
                started += 1
            }
            while let failure = try await group.next() {
                if let failure { failures.append(failure) }
                if started < runs {
                    let index = started
                    group.addTask { try await Self.promiseStep(executable, run: index) }
                    started += 1
                }
            }
        }
        print("demo.promise_step runs=\(runs) parallel=\(parallel) failures=\(failures.count)")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// One run of the promise step's processes, as the demo's first process runs them; what went
    /// wrong, or `nil`.
    static func promiseStep(_ executable: URL, run index: Int) async throws -> String? {
        let folder = FileManager.default.temporaryDirectory.appending(path: "handlerkit-promise-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appending(path: "signals.sqlite").path(percentEncoded: false)
        let app = Task { try await Subprocess.run(executable, ["--promise-await", store], timeLimit: 120) }
        // The app writes the promise's id once it made it, as it would send it with its request.
        let until = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: store + ".promise") && ContinuousClock.now < until {
            try await Task.sleep(for: .milliseconds(5))
        }
        let settled = try await Subprocess.run(executable, ["--promise-settle", store], timeLimit: 120)
        let awaited = try await app.value
        if settled.status != 0 { return "run \(index): the extension failed:\n\(settled.output)" }
        guard awaited.status == 0,
            awaited.output.contains("The awaiting task resumed with https://upload.example/avatar.png")
        else { return "run \(index): the app failed:\n\(awaited.output)" }
        return nil
    }
}
