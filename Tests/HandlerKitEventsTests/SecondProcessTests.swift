import Foundation
import HandlerKit
import Testing

/// Subscriptions saved by one process are restored by another — `handlerkit-events-probe`, a client
/// built with the HandlerKit plugin — which sends the event: its handlers run with their bound values.
@Suite struct SecondProcessTests {
    /// The probe next to the test bundle in the build folder (the test target depends on it).
    static let probe: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appending(path: "handlerkit-events-probe", directoryHint: .notDirectory)
            if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    /// Runs the probe and returns its exit status and output lines.
    static func run(_ arguments: String...) async throws -> (status: Int32, lines: [String]) {
        let probe = try #require(Self.probe, "handlerkit-events-probe not found next to the test bundle")
        let output = FileManager.default.temporaryDirectory.appending(path: "events-probe-\(UUID().uuidString).log")
        try #require(FileManager.default.createFile(atPath: output.path(percentEncoded: false), contents: nil))
        defer { try? FileManager.default.removeItem(at: output) }
        let log = try FileHandle(forWritingTo: output)
        defer { try? log.close() }
        let process = Process()
        process.executableURL = probe
        process.arguments = arguments
        process.standardOutput = log
        process.standardError = log
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let text = try String(contentsOf: output, encoding: .utf8)
        return (process.terminationStatus, text.split(separator: "\n").map(String.init))
    }

    @Test func aSecondProcessRestoresTheSubscriptionsSendsAndTheHandlersRunWithTheirBoundValues() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(
            path: "events-second-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "subscriptions.json").path(percentEncoded: false)

        let first = try await Self.run("save", file)
        #expect(first.status == 0, "\(first.lines)")
        #expect(first.lines == ["saved 4 handler subscriptions"])

        let second = try await Self.run("send", file)
        #expect(second.status == 0, "\(second.lines)")
        // The foreground handlers run in order on the sending thread; the background one (`inspect`)
        // after them, since the send waits for it.
        #expect(
            second.lines == [
                "restore: restored 4 subscription(s)",
                "subscription: handler Handler(Probe.record, bound: [label, times])",
                "subscription: handler Handler(Probe.record, bound: [label, times]) (one-time)",
                "subscription: handler Handler(Probe.record, bound: [label, times]) (locked)",
                "subscription: handler Handler(Probe.inspect, bound: [label]) (background)",
                "send hello",
                "ran Probe.record label=first times=1 data=hello eventName=messageArrived",
                "ran Probe.record label=once times=2 data=hello eventName=messageArrived",
                "ran Probe.inspect label=fourth sender=Chat data=hello (background)",
                "send again",
                "ran Probe.record label=first times=1 data=again eventName=messageArrived",
                "ran Probe.inspect label=fourth sender=Chat data=again (background)",
                "saved again",
            ])
    }

    @Test func aSecondProcessKeepsWhatItCannotRestoreAndSavesItAgain() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "events-dormant-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "subscriptions.json")
        // What a later version of the app might find: a handler that was removed, an event it no longer has.
        let gone: HandlerValue = .object([
            "background": .bool(false), "locked": .bool(false), "oneTime": .bool(false),
            "handler": .object([
                "bound": .object(["label": .string("old")]), "id": .string("Probe.removed"), "version": .number("1"),
            ]),
        ])
        let document: HandlerValue = .object([
            "events": .object(["Chat.messageArrived": .array([gone]), "Chat.retired": .array([gone])]),
            "format": .string("HandlerKitEvents.subscriptions"),
            "version": .number("1"),
        ])
        let saved = document.jsonData(prettyPrinted: true) + Data("\n".utf8)
        try saved.write(to: file)

        let run = try await Self.run("send", file.path(percentEncoded: false))
        #expect(run.status == 0, "\(run.lines)")
        let report = try #require(run.lines.first)
        #expect(report.contains("restored 0 subscription(s); 2 kept aside"))
        #expect(
            report.contains(
                "'events.Chat.messageArrived[0].handler' is kept dormant: unknown handler id 'Probe.removed'"))
        #expect(
            report.contains("'events.Chat.retired' belong to event 'Chat.retired', which this archive does not know"))
        #expect(!run.lines.contains { $0.hasPrefix("ran ") })
        #expect(try Data(contentsOf: file) == saved)
    }

    @Test func aDamagedFileIsReportedAndKept() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "events-damaged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "subscriptions.json")
        let damaged = Data(#"{"events":{"Chat.messageArrived":[{"background":false,"#.utf8)
        try damaged.write(to: file)

        let run = try await Self.run("send", file.path(percentEncoded: false))
        #expect(run.status == 1)
        #expect(
            run.lines.first?.hasPrefix("error: saved subscriptions are not readable: malformed JSON at line 1") == true,
            "\(run.lines)")
        #expect(try Data(contentsOf: file) == damaged)
        #expect(try Data(contentsOf: file.appendingPathExtension("unreadable")) == damaged)
    }
}
