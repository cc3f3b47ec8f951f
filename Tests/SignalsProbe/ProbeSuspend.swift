import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `suspend`: a process of the suspension tests, which suspends its center when told to:
///
///     suspend --db PATH --component C --log LOG --ready FILE --suspend-file FILE --suspended FILE
///             [--signals N --prefix S --handler-ms MS] [--grace-ms G] [--resume-file FILE]
///
/// Starts a run of C (taking over dead runs; it delivers only when told) and creates the ready file.
/// With `--signals`, it first registers N once consumers whose handler is `PartitionProbe.slow`
/// (`start <key> 0 <pid>`, sleeps MS, `end <key> 0 <pid>`), posts their signals, and starts
/// delivering them in a task. Once the suspend file exists (and, with `--signals`, a handler of
/// this process started), it suspends with a grace period of G ms (default 1,000), prints
/// `suspended <claims given back> <handlers finished> <handlers still running>` and creates the
/// suspended file. Then it waits for the resume file (without `--resume-file`, until it is killed),
/// resumes, prints `resumed same|taken-over <run id> <removed run consumers>`, delivers until nothing
/// of its run is open (`idle <completed>`), prints `pass <completed>` for the task, and stops. The
/// center's problems are printed as `problem <error>`.
enum SuspendProbe {
    /// Runs the `suspend` command; `false` for any other command.
    static func run(_ arguments: ProbeArguments, store: any SignalStore) async throws -> Bool {
        guard arguments.command == "suspend" else { return false }
        let log = try arguments.string("log")
        let retry = RetryPolicy(firstDelay: .milliseconds(1), maximumDelay: .milliseconds(20))
        let center = try await SignalCenter.start(
            component: try arguments.string("component", default: "probe"), store: store,
            options: .init(retry: retry, deliversAutomatically: false, onProblem: { say("problem \($0)") }))
        say("run \(center.runID) took over \(center.takeover.deadRuns.count) runs")
        let prefix = try arguments.string("prefix", default: "s")
        let signals = try arguments.int("signals", default: 0)
        let handler = try PartitionProbe.slowHandler(
            log: log, milliseconds: try arguments.int("handler-ms", default: 0))
        for index in 0..<signals {
            let consumer = try await center.register(handler, for: SignalID("\(prefix)\(index)"))
            say("consumer \(consumer) \(prefix)\(index) once")
        }
        for index in 0..<signals { _ = try await center.post(SignalID("\(prefix)\(index)"), payload: [:]) }
        let pass = signals > 0 ? Task { try await center.deliverDue() } : nil
        touch(try arguments.string("ready"), center.runID)

        try await waitFor(try arguments.string("suspend-file"))
        if signals > 0 {
            while !ProbeLog.lines(log).contains(where: { $0.hasPrefix("start ") && $0.hasSuffix(" \(getpid())") }) {
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        let suspension = try await center.suspend(
            finishingWithin: .milliseconds(try arguments.int("grace-ms", default: 1_000)))
        say(
            "suspended \(suspension.claimsGivenBack) \(suspension.handlersFinished) \(suspension.handlersStillRunning.count)"
        )
        touch(try arguments.string("suspended"), center.runID)

        guard let resumeFile = arguments.values["resume-file"] else {
            while true { try await Task.sleep(for: .seconds(1)) }
        }
        try await waitFor(resumeFile)
        let resumed = try await center.resume()
        say(
            "resumed \(resumed.wasTakenOver ? "taken-over" : "same") \(resumed.runID) \(resumed.removedRunConsumers.count)"
        )
        say("idle \(try await center.deliverUntilNothingIsOpen())")
        if let pass { say("pass \(try await pass.value)") }
        try await center.stop()
        return true
    }

    private static func touch(_ path: String, _ text: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    private static func waitFor(_ path: String) async throws {
        while !FileManager.default.fileExists(atPath: path) { try await Task.sleep(for: .milliseconds(2)) }
    }
}
