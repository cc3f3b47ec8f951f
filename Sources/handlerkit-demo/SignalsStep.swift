import Foundation
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsSQLite

/// The signals step, in the spirit of ownCloud's example flow (HandlerKitSignals):
///
/// 1. an *app* process starts an upload and registers a durable consumer for its result — a
///    serializable handler, persisted — then exits;
/// 2. a *sync* process (another component) performs the upload and posts the result;
/// 3. the *next app process* starts, takes over the consumer of the app run that is gone, and runs
///    its handler with the result; the record is gone afterwards.
///
/// The first process runs the three as child processes on one store file and checks each.
enum SignalsStep {
    /// The children: `handlerkit-demo <flag> STORE`.
    enum Child: String, CaseIterable {
        case register = "--signals-register"
        case perform = "--signals-perform"
        case resume = "--signals-resume"

        var role: String {
            switch self {
            case .register: "app process"
            case .perform: "sync process"
            case .resume: "next app process"
            }
        }
    }

    /// The child this process was started as, if any.
    static func child(_ arguments: [String]) -> (Child, String)? {
        for child in Child.allCases {
            if let index = arguments.firstIndex(of: child.rawValue), index + 1 < arguments.count {
                return (child, arguments[index + 1])
            }
        }
        return nil
    }

    /// In the first process: runs the three processes and checks that each did its part.
    static func run() throws {
        Say.line("Signals: durable result delivery across processes (HandlerKitSignals, SQLite)")
        let folder = FileManager.default.temporaryDirectory.appending(
            path: "handlerkit-demo-signals-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appending(path: "signals.sqlite").path(percentEncoded: false)
        for child in Child.allCases { try start(child, store: store) }
        Say.line("Signals: the result reached the handler in the next app process, and no record is left")
    }

    /// Runs this executable as `child` and waits for it; its output goes to this process's output.
    static func start(_ child: Child, store: String) throws {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = [child.rawValue, store]
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw DemoFailure(
                "the \(child.role) (pid \(process.processIdentifier)) failed with status \(process.terminationStatus)")
        }
    }

    /// In a child: its part of the flow.
    static func run(_ child: Child, store path: String) async throws {
        try HandlerRegistry.shared.register(.handlerkit_demo)
        let store = try SQLiteSignalStore(path: path)
        let signalFile = path + ".signal"
        switch child {
        case .register:
            let center = try await SignalCenter.start(
                component: "demo-app", store: store, options: .init(deliversAutomatically: false))
            let signal = SignalID()
            let consumer = try await center.register(try UploadResult.finishedHandler(file: "report.pdf"), for: signal)
            try Data(signal.rawValue.utf8).write(to: URL(fileURLWithPath: signalFile))
            Say.line(
                "Started uploading report.pdf (run \(center.runID.prefix(8))); registered durable consumer \(consumer.rawValue.prefix(8)) for signal \(signal.rawValue.prefix(8)): UploadResult.finished"
            )
            Say.line("Exiting before the result arrives")
        case .perform:
            let signal = SignalID(try String(contentsOfFile: signalFile, encoding: .utf8))
            let center = try await SignalCenter.start(
                component: "demo-sync", store: store, options: .init(deliversAutomatically: false))
            Say.line(
                "Performing the upload of report.pdf, then posting the result to signal \(signal.rawValue.prefix(8))")
            let result = try await center.post(
                signal, payload: ["success": true, "remotePath": "/Documents/report.pdf"])
            Say.line(
                "Posted revision \(result.revision): \(result.deliveries) consumer waits for it (its app process is gone)"
            )
            try await center.stop()
        case .resume:
            let center = try await SignalCenter.start(
                component: "demo-app", store: store, options: .init(deliversAutomatically: false))
            Say.line(
                "Started as the next process of demo-app: took over \(center.takeover.deadRuns.count) run that is gone, \(center.takeover.adoptedConsumers) durable consumer"
            )
            let delivered = try await center.deliverDue()
            let ran = DemoLog.shared.takeRanIDs()
            guard delivered == 1, ran == ["UploadResult.finished"] else {
                throw DemoFailure("expected UploadResult.finished to run once; delivered \(delivered), ran \(ran)")
            }
            try await center.stop()
            let left = try await store.statistics()
            guard left.consumers == 0, left.signals == 0,
                left.pendingDeliveries + left.claimedDeliveries + left.deadDeliveries == 0
            else {
                throw DemoFailure("records left in the store: \(left)")
            }
            Say.line("Delivered and completed; the consumer and the signal's record are gone")
        }
    }
}

/// The upload's result handler: persisted with the consumer, run wherever the result is delivered.
enum UploadResult {
    @handler
    static func finished(file: String, success: Bool, remotePath: String?, deliveryKey: String) {
        DemoLog.shared.ran(
            "UploadResult.finished",
            "upload of \(file) \(success ? "succeeded" : "failed") at \(remotePath ?? "-") (delivery \(deliveryKey.suffix(10)))"
        )
    }
}
