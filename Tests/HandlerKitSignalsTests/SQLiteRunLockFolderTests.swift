import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder of run lock files (`<store>.runs/`) deleted while two processes of a component hold
/// more than 100 claims between them, each delivering and taking over the component's dead runs
/// every few milliseconds (as a long-running server does): every delivery completes once, within
/// the takeover time, and no handler starts after its delivery was completed.
@Suite("Signals: SQLite run lock folder deleted under running processes", .serialized)
struct SQLiteRunLockFolderTests {
    /// Once consumers per process: 120 deliveries, each process claiming its 60 at once (a claim
    /// takes up to 64).
    static let consumersPerProcess = 60
    static let repetitions = 20
    /// Each handler's time, so that the claims are still held when the folder goes.
    static let handlerDelay = 5
    /// How often each process takes over the component's dead runs, in milliseconds.
    static let takeoverPeriod = 5
    /// How long after the deletion every delivery must have completed: the takeover period and the
    /// handlers' time, many times over, for a loaded machine (a stalled delivery stays open however
    /// long one waits).
    static let takeoverTime = Duration.seconds(60)

    struct Figures {
        var scenarios = 0
        var deliveries = 0
        var stuck = 0
        var startedAfterCompletion = 0
        var lost = 0
        var completedTwice = 0
        var notes: [String] = []
    }

    @Test func deletingTheLockFolderWhileTwoProcessesHoldClaimsLeavesNoDeliveryWithoutATaker() async throws {
        var figures = Figures()
        for repetition in 0..<Self.repetitions {
            // The moment of the deletion varies: 0 to 20 ms after the claims were seen.
            try await scenario(repetition, delay: repetition * 7 % 21, into: &figures)
        }
        print(
            "signals.lock_folder_test store=SQLite scenarios=\(figures.scenarios) deliveries=\(figures.deliveries) stuck=\(figures.stuck) started_after_completion=\(figures.startedAfterCompletion) lost=\(figures.lost) completed_twice=\(figures.completedTwice)"
        )
        #expect(figures.scenarios == Self.repetitions)
        #expect(figures.deliveries == Self.repetitions * 2 * Self.consumersPerProcess)
        #expect(figures.stuck == 0, "deliveries still open \(Self.takeoverTime) after the deletion: \(figures.notes)")
        #expect(figures.lost == 0 && figures.completedTwice == 0, "\(figures.notes)")
        #expect(figures.startedAfterCompletion == 0, "handlers started after their delivery was completed")
    }

    /// The folder goes while a handler runs, and a taker testing the run (in `takeOver`) holds the
    /// lock of the run's file, made again, when the delivery is completed with the next one of its
    /// batch marked started (which makes the file again, and cannot lock it): the completion
    /// stands. The taker then gives up (its own run was taken over meanwhile) and the run goes on,
    /// alive: a claim it kept would be run by no one until it ends.
    @Test func aCompletionStandsWhenATakerHoldsTheRunsLockFileAsTheNextDeliveryIsMarked() async throws {
        let folder = TemporaryFolder()
        let path = folder.path + "/signals.sqlite"
        let store = try SQLiteSignalStore(path: path, options: .init(busyTimeout: .seconds(20)))
        let recorder = Recorder()
        let registry = try makeRegistry(recorder)
        // The run's lock file, once the center started, and the taker's descriptor, once it holds it.
        let taker = Locked<(lockPath: String?, held: Int32?)>((nil, nil))
        var options = SignalCenter.Options(deliversAutomatically: false, claimBatch: 2)
        options.faultHook = { point in
            guard point == .beforeCompletion else { return }
            taker.withLock { taker in
                guard taker.held == nil, let lockPath = taker.lockPath else { return }
                // The folder is deleted; a taker makes the run's file again and holds its lock while it
                // waits for the database.
                try? FileManager.default.removeItem(atPath: path + ".runs")
                _ = mkdir(path + ".runs", 0o700)
                let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                if fd >= 0, flock(fd, LOCK_EX | LOCK_NB) == 0 { taker.held = fd }
            }
        }
        let center = try await SignalCenter.start(component: "app", store: store, registry: registry, options: options)
        let runID = center.runID
        taker.withLock { $0.lockPath = path + ".runs/\(runID).lock" }
        let handler = try Handler(id: "Sink.receive", registry: registry)
        let first = try await center.register(handler, for: "a")
        let second = try await center.register(handler, for: "b")
        _ = try await center.post("a", payload: ["item": 1])
        _ = try await center.post("b", payload: ["item": 2])

        // One batch of both: the first completes while the taker holds the run's lock file.
        var problem = "none"
        do {
            _ = try await center.deliverDue()
        } catch {
            problem = "\(error)"
        }
        let held = try #require(taker.withLock { $0.held }, "the taker held the run's lock file: \(problem)")
        // The taker's own run was taken over meanwhile: it takes nothing over, and removes the file.
        unlink(path + ".runs/\(runID).lock")
        close(held)

        // The run goes on (it makes its lock file again), and another process takes over the dead
        // runs of the component: there are none.
        _ = try await center.deliverDue()
        let otherStore = try SQLiteSignalStore(path: path, options: .init(busyTimeout: .seconds(20)))
        let other = try await manualCenter("app", store: otherStore, registry: registry)
        _ = try await other.takeOverDeadRuns()
        _ = try await other.deliverDue()
        #expect(center.runID == runID, "the run was not taken over")

        let left = try await store.statistics()
        let runStatus = try await store.runStatus(of: runID)
        #expect(
            left.claimedDeliveries + left.pendingDeliveries == 0,
            "no delivery is left to the live run: \(left); run \(runID): \(runStatus); first pass: \(problem)")
        for consumer in [first, second] {
            let completions = try await store.completions(of: DeliveryKey("\(consumer)/1")).count
            #expect(completions == 1, "\(consumer) completed once (first pass: \(problem))")
        }
        #expect(recorder.all.compactMap(\.item).sorted() == [1, 2], "\(recorder.all)")
        try await other.stop()
        try await center.stop()
    }

    /// One repetition: two processes, their consumers' signals posted, the folder deleted `delay`
    /// milliseconds after they hold 100 claims or more.
    private func scenario(_ repetition: Int, delay: Int, into figures: inout Figures) async throws {
        let folder = TemporaryFolder()
        let path = folder.path + "/signals.sqlite"
        let log = folder.path + "/handlers.log"
        let (go, stop, hold) = (folder.path + "/go", folder.path + "/stop", folder.path + "/hold")
        let store = try SQLiteSignalStore(path: path, options: .init(busyTimeout: .seconds(20)))
        var processes: [(process: Process, output: String, ready: String)] = []
        defer {
            _ = FileManager.default.createFile(atPath: hold, contents: nil)
            _ = FileManager.default.createFile(atPath: stop, contents: nil)
            for started in processes where started.process.isRunning {
                kill(started.process.processIdentifier, SIGKILL)
            }
        }
        for prefix in ["a", "b"] {
            let (output, ready) = (folder.path + "/\(prefix).out", folder.path + "/\(prefix).ready")
            let process = try Probe.start(
                [
                    "take-over-serve", "--db", path, "--component", "app", "--log", log,
                    "--signals", "\(Self.consumersPerProcess)", "--prefix", prefix, "--ready", ready, "--go", go,
                    "--stop-file", stop, "--take-over-every", "\(Self.takeoverPeriod)",
                    "--handler-delay", "\(Self.handlerDelay)", "--claim-batch", "64", "--hold-file", hold,
                ], output: output)
            processes.append((process, output, ready))
        }
        try await waitUntil("both processes registered their consumers", limit: .seconds(180)) {
            processes.allSatisfy { FileManager.default.fileExists(atPath: $0.ready) }
        }
        var expected: Set<String> = []
        for started in processes {
            let output = try String(contentsOfFile: started.output, encoding: .utf8)
            for line in output.split(separator: "\n") {
                let fields = line.split(separator: " ")
                if fields.count == 4, fields[0] == "consumer" { expected.insert("\(fields[1])/1") }
            }
        }
        #expect(expected.count == 2 * Self.consumersPerProcess, "consumers registered")
        for prefix in ["a", "b"] {
            let posted = try await Probe.run(
                [
                    "post", "--db", path, "--component", "sync", "--signals", "\(Self.consumersPerProcess)",
                    "--prefix", prefix,
                ], folder: folder.path)
            #expect(posted.status == 0, "\(posted.output)")
        }
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        // Their handlers wait for the hold file: each process holds its claims until both hold theirs,
        // however late one of them starts on a loaded machine.
        try await waitUntil("the two processes hold 100 claims or more", limit: .seconds(180)) {
            try await store.statistics().claimedDeliveries >= 100
        }
        _ = FileManager.default.createFile(atPath: hold, contents: nil)
        if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
        try FileManager.default.removeItem(atPath: path + ".runs")
        let deleted = ContinuousClock.now

        // Every delivery completes (each once consumer then ends), or is counted stuck.
        while deleted.duration(to: .now) < Self.takeoverTime {
            let left = try await store.statistics()
            if left.pendingDeliveries + left.claimedDeliveries == 0 && left.consumers == 0 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let left = try await store.statistics()
        let stuck = left.pendingDeliveries + left.claimedDeliveries
        _ = FileManager.default.createFile(atPath: stop, contents: nil)
        var failedProcesses = 0
        for started in processes {
            let end = ContinuousClock.now + .seconds(60)
            while started.process.isRunning, ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(10)) }
            if started.process.isRunning { kill(started.process.processIdentifier, SIGKILL) }
            await Probe.finish(started.process)
            let output = (try? String(contentsOfFile: started.output, encoding: .utf8)) ?? ""
            #expect(started.process.terminationStatus == 0, "repetition \(repetition): \(output.suffix(2_000))")
            if started.process.terminationStatus != 0 { failedProcesses += 1 }
        }

        var lost = 0
        var completedTwice = 0
        for key in expected {
            switch try await store.completions(of: DeliveryKey(key)).count {
            case 0: lost += 1
            case 1: continue
            default: completedTwice += 1
            }
        }
        let handlerLog = HandlerLog(path: log)
        if stuck > 0 || lost > 0 || completedTwice > 0 || failedProcesses > 0
            || !handlerLog.startedAfterCompletion.isEmpty
        {
            let runs = try await store.runs(of: "app")
            let note =
                "repetition \(repetition) (deleted \(delay) ms after 100 claims): \(stuck) open, \(lost) lost, "
                + "\(completedTwice) completed twice; runs recorded \(runs.recorded.sorted()), named by "
                + "consumers \(runs.namedByConsumers.sorted()), owning deliveries \(runs.owningDeliveries.sorted()); "
                + Self.keepEvidence(of: folder.path, repetition: repetition)
            print("signals.lock_folder_test \(note)")
            figures.notes.append(note)
        }
        figures.scenarios += 1
        figures.deliveries += expected.count
        figures.stuck += stuck
        figures.lost += lost
        figures.completedTwice += completedTwice
        figures.startedAfterCompletion += handlerLog.startedAfterCompletion.count
    }

    /// Copies what a failing repetition leaves in `folder` (the probes' output, the handlers' log,
    /// the store's files and its folder of lock files) to a folder of the temporary directory that
    /// is not removed, and says where, for the failure's message.
    private static func keepEvidence(of folder: String, repetition: Int) -> String {
        let kept = FileManager.default.temporaryDirectory
            .appending(path: "handlerkit-lock-folder-evidence-\(UUID().uuidString)/repetition-\(repetition)")
            .path(percentEncoded: false)
        do {
            try FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
        } catch {
            return "evidence not kept: cannot make \(kept): \(error)"
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var problems: [String] = []
        for name in names.sorted() {
            do {
                try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: kept + "/" + name)
            } catch {
                problems.append("\(name): \(error)")
            }
        }
        return "evidence (the probes' output, handlers.log, the store's files) kept in \(kept)"
            + (problems.isEmpty ? "" : " (not copied: \(problems))")
    }

    /// Waits (up to `limit`) until `condition` holds; fails naming `what` otherwise.
    private func waitUntil(_ what: String, limit: Duration, _ condition: () async throws -> Bool) async throws {
        let end = ContinuousClock.now + limit
        while try await !condition() {
            guard ContinuousClock.now < end else {
                throw Probe.Failure(description: "timed out after \(limit): \(what)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
