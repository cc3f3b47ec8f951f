import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit
import TestWaiting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Real processes that suspend their center (the probe's `suspend` command): what they hold while
/// suspended (`/proc/locks`), and what becomes of their deliveries when they are killed, stopped
/// and taken over, or suspended while a handler runs.
package struct SuspensionScenarios {
    package init() {}

    let folder = TemporaryFolder()
    var log: String { folder.path + "/handlers.log" }

    /// A `suspend` probe and the files it is driven through.
    struct Suspender {
        let process: Process
        let output: String
        let ready: String
        let suspendFile: String
        let suspended: String
        let resumeFile: String

        var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

        /// Waits (two minutes, scaled: TestWait) until `path` exists; not a timing assertion.
        func waitFor(_ path: String) async throws {
            await TestWait.expect("the probe to make \(path)", limit: .seconds(120), seen: { text }) {
                FileManager.default.fileExists(atPath: path) || !process.isRunning
            }
            #expect(FileManager.default.fileExists(atPath: path), "\(path) was not made: \(text)")
        }

        /// Tells it to suspend and waits until it is.
        func suspend() async throws {
            _ = FileManager.default.createFile(atPath: suspendFile, contents: nil)
            try await waitFor(suspended)
        }
    }

    func startSuspender(_ kind: StoreKind, _ arguments: [String] = [], resuming: Bool = true) async throws -> Suspender
    {
        let name = folder.path + "/suspender-\(UUID().uuidString.prefix(8))"
        var all = [
            "suspend", "--component", "app", "--log", log, "--ready", name + ".ready",
            "--suspend-file", name + ".suspend", "--suspended", name + ".suspended",
        ]
        if resuming { all += ["--resume-file", name + ".resume"] }
        let process = try Probe.start(all + arguments + kind.probeArguments(folder.path), output: name + ".out")
        let suspender = Suspender(
            process: process, output: name + ".out", ready: name + ".ready", suspendFile: name + ".suspend",
            suspended: name + ".suspended", resumeFile: name + ".resume")
        try await suspender.waitFor(suspender.ready)
        return suspender
    }

    func probe(_ kind: StoreKind, _ arguments: [String]) async throws -> Probe.Outcome {
        try await Probe.run(arguments + kind.probeArguments(folder.path), folder: folder.path)
    }

    /// Registers `count` once consumers of component `app` (signals `prefix0`…) whose run then ends with its process.
    func register(_ kind: StoreKind, _ count: Int, prefix: String) async throws -> [String] {
        let outcome = try await probe(
            kind, ["register", "--component", "app", "--log", log, "--signals", "\(count)", "--prefix", prefix])
        #expect(outcome.status == 0, "\(outcome.output)")
        return outcome.lines.compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count == 4 && fields[0] == "consumer" ? String(fields[1]) : nil
        }
    }

    func post(_ kind: StoreKind, _ count: Int, prefix: String) async throws {
        let outcome = try await probe(
            kind, ["post", "--component", "sync", "--signals", "\(count)", "--prefix", prefix])
        #expect(outcome.status == 0, "\(outcome.output)")
    }

    /// An active process holds its run's lock file locked; suspended, it holds no lock on any file of
    /// the store's folder (run lock files, database, `-wal`, `-shm`, wake file); resumed, it delivers.
    package func aSuspendedProcessHoldsNoLockOnTheStoresFiles(kind: StoreKind) async throws {
        let consumers = try await register(kind, 3, prefix: "l")
        let suspender = try await startSuspender(kind)
        let runID = try String(contentsOfFile: suspender.ready, encoding: .utf8)
        let pid = suspender.process.processIdentifier
        let active = try #require(FileLocks(pid: pid, folder: folder.path), "/proc/locks cannot be read")
        let runLockFile = folder.path + "/signals.sqlite.runs/\(runID).lock"
        #expect(
            active.locks.contains { $0.kind == "FLOCK" && $0.path == runLockFile },
            "an active process holds its run lock: \(active)")

        try await suspender.suspend()
        let suspended = try #require(FileLocks(pid: pid, folder: folder.path), "/proc/locks cannot be read")
        #expect(suspended.locks.isEmpty, "a suspended process holds no lock on the store's files: \(suspended)")

        try await post(kind, 3, prefix: "l")
        let stillSuspended = try #require(FileLocks(pid: pid, folder: folder.path), "/proc/locks cannot be read")
        #expect(stillSuspended.locks.isEmpty, "other processes' posts make it take none: \(stillSuspended)")

        _ = FileManager.default.createFile(atPath: suspender.resumeFile, contents: nil)
        await Probe.finish(suspender.process)
        #expect(suspender.process.terminationStatus == 0, "\(suspender.text)")
        #expect(suspender.text.contains("resumed same \(runID) 0"), "\(suspender.text)")
        #expect(suspender.text.contains("idle 3"), "\(suspender.text)")
        let store = try kind.open(folder.path)
        let tally = try await CompletionTally(store, consumers.map { "\($0)/1" })
        #expect(tally.lost.isEmpty && tally.completedTwice.isEmpty, "\(tally)")
        print(
            "signals.suspend_locks store=\(kind.name) active_locks=\(active.locks.count) active_run_lock=\(active.locks.filter { $0.path == runLockFile }.count) suspended_locks=\(suspended.locks.count) suspended_after_posts=\(stillSuspended.locks.count) (active: \(active))"
        )
    }

    /// A suspended process is killed (SIGKILL): the next process of its component takes its run over
    /// and delivers what was posted to it, each delivery once.
    package func aKilledSuspendedProcessIsTakenOverAndItsDeliveriesDelivered(kind: StoreKind) async throws {
        let consumers = try await register(kind, 5, prefix: "k")
        let suspender = try await startSuspender(kind, resuming: false)
        try await suspender.suspend()
        try await post(kind, 5, prefix: "k")
        kill(suspender.process.processIdentifier, SIGKILL)
        await Probe.finish(suspender.process)

        let taker = try await probe(kind, ["consume", "--component", "app", "--stop"])
        #expect(taker.status == 0, "\(taker.output)")
        #expect(!taker.output.contains("took over 0 runs"), "\(taker.output)")
        #expect(taker.output.contains("idle 5"), "\(taker.output)")
        let store = try kind.open(folder.path)
        let tally = try await CompletionTally(store, consumers.map { "\($0)/1" })
        #expect(tally.lost.isEmpty && tally.completedTwice.isEmpty, "\(tally)")
        let open = try await store.statistics()
        #expect(open.pendingDeliveries + open.claimedDeliveries == 0)
    }

    /// A suspended process is stopped (SIGSTOP) and another process takes its run over and delivers;
    /// continued (SIGCONT) and resumed, it reports that it was taken over and carries on as a new
    /// run: nothing is completed twice, nothing is lost.
    package func aStoppedSuspendedProcessTakenOverResumesAsANewRun(kind: StoreKind) async throws {
        let consumers = try await register(kind, 5, prefix: "p")
        let suspender = try await startSuspender(kind)
        let runID = try String(contentsOfFile: suspender.ready, encoding: .utf8)
        try await suspender.suspend()
        try await post(kind, 5, prefix: "p")
        kill(suspender.process.processIdentifier, SIGSTOP)

        let taker = try await probe(kind, ["consume", "--component", "app", "--stop"])
        #expect(taker.status == 0, "\(taker.output)")
        #expect(!taker.output.contains("took over 0 runs"), "\(taker.output)")
        #expect(taker.output.contains("idle 5"), "\(taker.output)")

        kill(suspender.process.processIdentifier, SIGCONT)
        _ = FileManager.default.createFile(atPath: suspender.resumeFile, contents: nil)
        await Probe.finish(suspender.process)
        let text = suspender.text
        #expect(suspender.process.terminationStatus == 0, "\(text)")
        #expect(text.contains("resumed taken-over"), "\(text)")
        #expect(!text.contains("resumed taken-over \(runID)"), "a new run id: \(text)")
        #expect(text.contains("run \(runID) of component 'app' was taken over"), "\(text)")
        #expect(text.contains("idle 0"), "\(text)")

        let store = try kind.open(folder.path)
        let tally = try await CompletionTally(store, consumers.map { "\($0)/1" })
        #expect(tally.lost.isEmpty && tally.completedTwice.isEmpty, "\(tally)")
        let handlerLog = HandlerLog(path: log)
        #expect(handlerLog.entries.allSatisfy { $0.pid != String(suspender.process.processIdentifier) })
        #expect(handlerLog.startedAfterCompletion.isEmpty)
    }

    /// A process suspends while a handler runs past the grace period: the suspension goes ahead, the
    /// claim not started is given back, and the process that takes the run over runs both deliveries
    /// (the interrupted one again, with the same key). The first handler returns meanwhile; resumed,
    /// the process finds its run taken over and its completion is refused: each delivery is
    /// completed once.
    package func aHandlerRunningPastTheGracePeriodRunsAgainAtTheTaker(kind: StoreKind) async throws {
        let suspender = try await startSuspender(
            kind, ["--signals", "2", "--prefix", "g", "--handler-ms", "8000", "--grace-ms", "50"])
        let consumers = suspender.text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count == 4 && fields[0] == "consumer" ? String(fields[1]) : nil
        }
        #expect(consumers.count == 2, "\(suspender.text)")
        try await suspender.suspend()
        #expect(
            suspender.text.contains("suspended 1 0 1"), "one claim given back, one handler running: \(suspender.text)")

        let taker = try await probe(kind, ["consume", "--component", "app", "--stop"])
        #expect(taker.status == 0, "\(taker.output)")
        #expect(taker.output.contains("took over 1 runs, 1 interrupted"), "\(taker.output)")
        #expect(taker.output.contains("idle 2"), "\(taker.output)")

        _ = FileManager.default.createFile(atPath: suspender.resumeFile, contents: nil)
        await Probe.finish(suspender.process)
        let text = suspender.text
        #expect(suspender.process.terminationStatus == 0, "\(text)")
        #expect(text.contains("resumed taken-over"), "\(text)")
        #expect(text.contains("pass 0"), "the suspended pass completed nothing: \(text)")

        let store = try kind.open(folder.path)
        let keys = consumers.map { "\($0)/1" }
        let tally = try await CompletionTally(store, keys)
        #expect(tally.lost.isEmpty && tally.completedTwice.isEmpty, "\(tally)")
        let handlerLog = HandlerLog(path: log)
        let pid = String(suspender.process.processIdentifier)
        let startedBySuspended = handlerLog.entries.filter { !$0.isEnd && $0.pid == pid }.map(\.key)
        #expect(startedBySuspended.count == 1, "handlers the suspended process started: \(startedBySuspended)")
        let ranAgain = handlerLog.entries.filter { !$0.isEnd && $0.pid != pid && startedBySuspended.contains($0.key) }
        #expect(ranAgain.count == 1, "the interrupted delivery ran again at the taker with the same key")
        #expect(
            handlerLog.entries.contains { $0.isEnd && $0.pid == pid }, "the suspended process's handler returned")
        if let key = startedBySuspended.first {
            let completions = try await store.completions(of: DeliveryKey(key))
            #expect(completions.map(\.attempt) == [2], "the interrupted attempt counts: \(completions)")
        }
    }

    /// A process suspends while a handler runs past the grace period and is killed before the handler
    /// returns: the process that takes the run over runs that delivery again with the same key (its
    /// interrupted attempt counted) and the one given back; each is completed once.
    package func aProcessKilledWhileItsHandlerRunsPastTheGracePeriodLosesNothing(kind: StoreKind) async throws {
        let suspender = try await startSuspender(
            kind, ["--signals", "2", "--prefix", "h", "--handler-ms", "8000", "--grace-ms", "50"], resuming: false)
        let consumers = suspender.text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count == 4 && fields[0] == "consumer" ? String(fields[1]) : nil
        }
        #expect(consumers.count == 2, "\(suspender.text)")
        try await suspender.suspend()
        #expect(suspender.text.contains("suspended 1 0 1"), "\(suspender.text)")
        kill(suspender.process.processIdentifier, SIGKILL)
        await Probe.finish(suspender.process)

        let taker = try await probe(kind, ["consume", "--component", "app", "--stop"])
        #expect(taker.status == 0, "\(taker.output)")
        #expect(taker.output.contains("took over 1 runs, 1 interrupted"), "\(taker.output)")
        let store = try kind.open(folder.path)
        let tally = try await CompletionTally(store, consumers.map { "\($0)/1" })
        #expect(tally.lost.isEmpty && tally.completedTwice.isEmpty, "\(tally)")
        let handlerLog = HandlerLog(path: log)
        let pid = String(suspender.process.processIdentifier)
        let interrupted = handlerLog.interruptedRuns.filter { handlerLog.entries[$0.index].pid == pid }
        #expect(interrupted.count == 1, "the killed process's handler never returned")
        for run in interrupted {
            #expect(handlerLog.returned(run.key, after: run.index), "\(run.key) ran again and returned")
            let completions = try await store.completions(of: DeliveryKey(run.key))
            #expect(completions.map(\.attempt) == [2], "the interrupted attempt counts: \(completions)")
        }
    }
}
