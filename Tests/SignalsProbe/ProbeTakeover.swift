import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// `take-over-serve --db PATH --component C --log LOG --signals N --prefix S --ready FILE --go FILE
/// --stop-file FILE [--take-over-every MS] [--handler-delay MS] [--claim-batch B] [--hold-file FILE]`
///
/// A long-running process of a component, as a server that also delivers for the processes of its
/// component that died: starts a run (claiming B deliveries at a time), registers one once consumer
/// per signal S0…S(N-1) whose handler takes `--handler-delay` ms, prints `consumer <id> <signal> once`
/// for each and creates the ready file. Once the go file exists it delivers what is due, again and
/// again, while another task calls `takeOverDeadRuns()` every `--take-over-every` ms, until the stop
/// file exists; then it stops its center and prints `stopped <run id>`. Each problem the center
/// reports, or a call throws, is printed as `problem <error>`. With `--hold-file`, each handler waits
/// for that file before it starts, so the process holds its claims until the file exists.
enum TakeoverProbe {
    static func run(_ arguments: ProbeArguments, store: any SignalStore) async throws -> Bool {
        guard arguments.command == "take-over-serve" else { return false }
        let log = try arguments.string("log")
        let ready = try arguments.string("ready")
        let go = try arguments.string("go")
        let stop = try arguments.string("stop-file")
        let prefix = try arguments.string("prefix")
        let delay = try arguments.int("handler-delay", default: 5)
        let every = try arguments.int("take-over-every", default: 5)
        ProbeContext.holdFile = arguments.values["hold-file"]
        let options = SignalCenter.Options(
            retry: RetryPolicy(maximumAttempts: 1_000, firstDelay: .milliseconds(1), maximumDelay: .milliseconds(20)),
            deliversAutomatically: false, claimBatch: try arguments.int("claim-batch", default: 64),
            onProblem: { say("problem \($0)") })
        let center = try await SignalCenter.start(
            component: try arguments.string("component"), store: store, options: options)
        for index in 0..<(try arguments.int("signals")) {
            let consumer = try await center.register(
                try Probe.slowRecordHandler(log: log, delay: delay), for: SignalID("\(prefix)\(index)"))
            say("consumer \(consumer) \(prefix)\(index) once")
        }
        _ = FileManager.default.createFile(atPath: ready, contents: Data(center.runID.utf8))
        while !FileManager.default.fileExists(atPath: go) { try await Task.sleep(for: .milliseconds(1)) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !FileManager.default.fileExists(atPath: stop) {
                    do {
                        _ = try await center.deliverDue()
                    } catch {
                        say("problem \(error)")
                    }
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
            group.addTask {
                while !FileManager.default.fileExists(atPath: stop) {
                    do {
                        try await center.takeOverDeadRuns()
                    } catch {
                        say("problem \(error)")
                    }
                    try? await Task.sleep(for: .milliseconds(every))
                }
            }
        }
        try await center.stop()
        say("stopped \(center.runID)")
        return true
    }
}
