import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension StoreKind {
    /// Runs one of the TestKit's crash and concurrency checks (`SignalStoreProcessChecks`) on this
    /// store, with `handlerkit-signals-probe` (whose shared commands are the TestKit's probe), and
    /// prints what it counted (kills, deliveries, lost, completed twice, …).
    package func runProcessCheck(_ check: SignalStoreProcessChecks.Check) async throws {
        guard let probe = Probe.executable else {
            throw Probe.Failure(description: "handlerkit-signals-probe not found next to the test bundle")
        }
        let figures = try await check.run(
            probe: probe, storeArguments: { folder in try probeArguments(folder.path(percentEncoded: false)) },
            openStore: { folder in try open(folder.path(percentEncoded: false)) })
        if !figures.isEmpty { print("signals.kill_test store=\(name) \(figures)") }
    }
}

/// Real processes, against a store that processes share, in what only this package's stores have
/// (the store-independent scenarios are the TestKit's `SignalStoreProcessChecks`): the probe
/// registers, posts and consumes, and is stopped or killed at injected points. Every test checks the
/// store afterwards through the public API.
package struct ProcessScenarios {
    package init() {}

    let folder = TemporaryFolder()
    var log: String { folder.path + "/handlers.log" }

    func probe(_ kind: StoreKind, _ arguments: [String]) async throws -> Probe.Outcome {
        try await Probe.run(arguments + kind.probeArguments(folder.path), folder: folder.path)
    }

    /// Registers one consumer per signal `prefix0`… for component `app`; returns the consumer ids.
    func register(_ kind: StoreKind, _ count: Int, prefix: String) async throws -> [String] {
        let outcome = try await probe(
            kind, ["register", "--component", "app", "--log", log, "--signals", "\(count)", "--prefix", prefix])
        #expect(outcome.status == 0, "\(outcome.output)")
        return outcome.lines.compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count == 4 && fields[0] == "consumer" ? String(fields[1]) : nil
        }
    }

    /// Whether the store has no delivery left open (pending or claimed).
    func isSettled(_ store: any SignalStore) async throws -> Bool {
        let left = try await store.statistics()
        return left.pendingDeliveries + left.claimedDeliveries == 0
    }

    /// A consumer process holds claims and is stopped (SIGSTOP) before starting their handlers; its
    /// run's lock file disappears (the folder of lock files is removed), so another process takes
    /// the run over and completes every delivery. Continued (SIGCONT), the stopped process starts
    /// none of those handlers: it finds its run taken over.
    package func aRunWhoseLockFileWasRemovedStartsNoHandlerItsTakerCompleted(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let consumers = try await register(kind, 12, prefix: "f")
        let posted = try await probe(kind, ["post", "--component", "sync", "--signals", "12", "--prefix", "f"])
        #expect(posted.status == 0, "\(posted.output)")
        let ready = folder.path + "/stopped"
        let stoppedOutput = folder.path + "/stopped.out"
        let stopped = try Probe.start(
            ["consume", "--component", "app", "--stop-at", "afterClaim", "--ready", ready, "--stop"]
                + kind.probeArguments(folder.path), output: stoppedOutput)
        // Waits (up to two minutes) until it holds its claims and is stopped; not a timing assertion.
        for _ in 0..<12_000 where !(FileManager.default.fileExists(atPath: ready) && Probe.isStopped(stopped)) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(Probe.isStopped(stopped), "the first consumer is stopped while it holds claims")
        #expect(try await store.statistics().claimedDeliveries == 12)
        try FileManager.default.removeItem(atPath: folder.path + "/signals.sqlite.runs")

        let taker = try await probe(kind, ["consume", "--component", "app", "--stop"])
        #expect(taker.status == 0, "\(taker.output)")
        #expect(taker.output.contains("took over 1 runs, 12 interrupted"), "\(taker.output)")
        #expect(taker.output.contains("idle 12"), "\(taker.output)")

        kill(stopped.processIdentifier, SIGCONT)
        await Probe.finish(stopped)
        let resumed = (try? String(contentsOfFile: stoppedOutput, encoding: .utf8)) ?? ""
        #expect(stopped.terminationStatus == 0, "\(resumed)")
        #expect(resumed.contains("was taken over by another process"), "\(resumed)")

        let handlerLog = HandlerLog(path: log)
        let startsByStopped = handlerLog.entries.filter { $0.pid == String(stopped.processIdentifier) }.count
        #expect(startsByStopped == 0, "the process that lost its run started no handler: \(resumed)")
        #expect(handlerLog.startedAfterCompletion.isEmpty, "handlers started after their delivery was completed")
        var completedTwice = 0
        var lost = 0
        for consumer in consumers {
            switch try await completions(store, "\(consumer)/1") {
            case 0: lost += 1
            case 1: continue
            default: completedTwice += 1
            }
        }
        #expect(lost == 0 && completedTwice == 0)
        #expect(try await isSettled(store))
        let dead = try await store.statistics().deadDeliveries
        #expect(dead == 0)
        print(
            "signals.fencing_test store=\(kind.name) deliveries=12 started_after_completion=\(handlerLog.startedAfterCompletion.count) starts_by_stopped_run=\(startsByStopped) lost=\(lost) completed_twice=\(completedTwice) dead=\(dead)"
        )
    }

    func completions(_ store: any SignalStore, _ key: String) async throws -> Int {
        try await store.completions(of: DeliveryKey(key)).count
    }
}
