import Foundation
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsSQLite

/// The promise step, in the spirit of Monal's avatar upload:
///
/// 1. an *app* process makes a durable promise for an upload slot (with a fallback handler) and
///    awaits it;
/// 2. an *extension* process (another component) receives the slot and fulfils the promise by its id;
/// 3. the app's waiting task resumes with the slot; the fallback does not run.
enum PromiseStep {
    /// The children: `handlerkit-demo <flag> STORE`.
    static let awaitFlag = "--promise-await"
    static let settleFlag = "--promise-settle"

    /// The child this process was started as, if any.
    static func child(_ arguments: [String]) -> (flag: String, store: String)? {
        for flag in [awaitFlag, settleFlag] {
            if let index = arguments.firstIndex(of: flag), index + 1 < arguments.count {
                return (flag, arguments[index + 1])
            }
        }
        return nil
    }

    /// The role a child of this step prints its lines as.
    static func role(_ arguments: [String]) -> String? {
        child(arguments).map { $0.flag == awaitFlag ? "promise app process" : "promise extension process" }
    }

    /// In the first process: runs the app and the extension on one store file and checks both.
    static func run() async throws {
        Say.line("Promises: the app awaits a result the extension delivers (HandlerKitSignals, SQLite)")
        let folder = FileManager.default.temporaryDirectory.appending(
            path: "handlerkit-demo-promise-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = folder.appending(path: "signals.sqlite").path(percentEncoded: false)
        let app = try start(awaitFlag, store: store)
        // The app writes the promise's id once it made it (as it would send it with its request), and
        // then awaits it: the extension may fulfil it first, and the app's wait still receives it.
        let idFile = store + ".promise"
        let until = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: idFile) && app.isRunning && Date() < until {
            try await Task.sleep(for: .milliseconds(10))
        }
        try finish(try start(settleFlag, store: store), "extension process")
        try finish(app, "app process")
        Say.line("Promises: the waiting app task received the value; its fallback did not run")
    }

    private static func start(_ flag: String, store: String) throws -> Process {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = [flag, store]
        try process.run()
        return process
    }

    private static func finish(_ process: Process, _ role: String) throws {
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw DemoFailure(
                "the \(role) (pid \(process.processIdentifier)) failed with status \(process.terminationStatus)")
        }
    }

    /// In a child: its part of the flow.
    static func run(_ flag: String, store path: String) async throws {
        try HandlerRegistry.shared.register(.handlerkit_demo)
        let store = try SQLiteSignalStore(path: path)
        let idFile = path + ".promise"
        if flag == awaitFlag {
            let center = try await SignalCenter.start(component: "demo-app", store: store)
            let slot = try await center.makePromise(
                of: String.self, fallback: try AvatarSlot.arrivedHandler(), deadline: Date().addingTimeInterval(60))
            Say.line("Requested an upload slot for avatar.png; awaiting promise \(slot.id.prefix(8))")
            try Data(slot.id.utf8).write(to: URL(fileURLWithPath: idFile))
            let url = try await center.value(of: slot)
            Say.line("The awaiting task resumed with \(url)")
            guard DemoLog.shared.takeRanIDs().isEmpty else { throw DemoFailure("the fallback ran as well") }
            try await center.stop()
        } else {
            let center = try await SignalCenter.start(
                component: "demo-extension", store: store, options: .init(deliversAutomatically: false))
            let slot = DurablePromise<String>(id: try String(contentsOfFile: idFile, encoding: .utf8))
            Say.line("The extension received the slot; fulfilling promise \(slot.id.prefix(8))")
            try await center.fulfil(slot, with: "https://upload.example/avatar.png", settlementKey: "reply-1")
            try await center.stop()
        }
    }
}

/// The promise's fallback: runs when the slot arrives while the app awaits nothing.
enum AvatarSlot {
    @handler
    static func arrived(promiseID: String, value: String?) {
        DemoLog.shared.ran("AvatarSlot.arrived", "slot \(value ?? "-") for promise \(promiseID.prefix(8))")
    }
}
