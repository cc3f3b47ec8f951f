import Foundation
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The suspension step (what an iOS app does when it goes to the background):
///
/// 1. an *app process* registers a durable consumer for an upload's result, then suspends its signal
///    center: it holds no lock on the store's files any more, and waits, as a suspended app does;
/// 2. it is killed while suspended (iOS ends background apps it needs the memory of);
/// 3. a *sync process* posts the result, and the *next app process* takes over the killed run and
///    runs the handler (the signals step's processes).
enum SuspendStep {
    /// The suspended app process: `handlerkit-demo --signals-suspend STORE`.
    static let flag = "--signals-suspend"
    static let role = "suspended app process"

    /// The store, when this process was started as the suspended app process.
    static func child(_ arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    /// In the first process: runs the step's processes and checks each.
    static func run() async throws {
        Say.line("Signals: an app suspended in the background holds no lock, is killed, and its consumer is delivered")
        let folder = FileManager.default.temporaryDirectory.appending(
            path: "handlerkit-demo-suspend-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appending(path: "signals.sqlite").path(percentEncoded: false)
        let suspended = store + ".suspended"

        let app = Process()
        app.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        app.arguments = [flag, store]
        try app.run()
        // A minute at most for it to register and suspend.
        for _ in 0..<6_000 where app.isRunning && !FileManager.default.fileExists(atPath: suspended) {
            try await Task.sleep(for: .milliseconds(10))
        }
        guard FileManager.default.fileExists(atPath: suspended) else {
            app.terminate()
            throw DemoFailure("the suspended app process (pid \(app.processIdentifier)) did not suspend")
        }
        kill(app.processIdentifier, SIGKILL)
        app.waitUntilExit()
        Say.line("Killed the suspended app process (pid \(app.processIdentifier)), as iOS may")
        try SignalsStep.start(.perform, store: store)
        try SignalsStep.start(.resume, store: store)
        Say.line("Signals: the killed app's consumer ran in the next app process")
    }

    /// In the suspended app process: registers the consumer, suspends, and waits to be killed.
    static func runChild(store path: String) async throws {
        try HandlerRegistry.shared.register(.handlerkit_demo)
        let store = try SQLiteSignalStore(path: path)
        let center = try await SignalCenter.start(component: "demo-app", store: store)
        let signal = SignalID()
        _ = try await center.register(try UploadResult.finishedHandler(file: "report.pdf"), for: signal)
        try Data(signal.rawValue.utf8).write(to: URL(fileURLWithPath: path + ".signal"))
        Say.line("Registered a durable consumer for the upload's result; going to the background")
        let report = try await center.suspend(finishingWithin: .seconds(5))
        Say.line(
            "Suspended run \(report.runID.prefix(8)): its lock file and database connection are closed, no lock is held"
        )
        _ = FileManager.default.createFile(atPath: path + ".suspended", contents: nil)
        while true { try await Task.sleep(for: .seconds(1)) }
    }
}
