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

/// Real processes that run their center as a `SignalCenterService` in a `ServiceGroup` and receive a
/// real SIGTERM (the probe's `service` command), and two processes whose spans are linked (its
/// `trace-post` and `trace-consume` commands). Each test counts through the public API: deliveries
/// lost, completed twice, and runs left for a takeover.
package struct ServiceScenarios {
    package init() {}

    let folder = TemporaryFolder()
    var log: String { folder.path + "/handlers.log" }

    func probe(_ kind: StoreKind, _ arguments: [String]) async throws -> Probe.Outcome {
        try await Probe.run(arguments + kind.probeArguments(folder.path), folder: folder.path)
    }

    /// Starts the `service` probe with `signals` slow consumers, waits until one of its handlers
    /// started, sends it SIGTERM and waits for it to exit; returns its run id and output.
    /// Starts the service and sends it SIGTERM once one of its handlers started. With
    /// `holdingTheFirstHandler`, that handler waits for a file the test makes only after the SIGTERM:
    /// no later handler can start before it, however loaded the machine.
    private func serveUntilSIGTERM(
        _ kind: StoreKind, signals: Int, handlerMilliseconds: Int, graceMilliseconds: Int,
        holdingTheFirstHandler: Bool = false
    ) async throws -> (runID: String, output: String, status: Int32, exited: Bool) {
        let ready = folder.path + "/ready"
        let output = folder.path + "/service.out"
        let hold = folder.path + "/sigterm-sent"
        let server = try Probe.start(
            [
                "service", "--component", "app", "--log", log, "--ready", ready, "--signals", "\(signals)",
                "--prefix", "g", "--handler-ms", "\(handlerMilliseconds)", "--grace-ms", "\(graceMilliseconds)",
            ] + (holdingTheFirstHandler ? ["--hold-file", hold] : []) + kind.probeArguments(folder.path),
            output: output)
        let pid = String(server.processIdentifier)
        // Waits (two minutes, scaled: TestWait) for the group to run and a handler of the service to
        // start; not a timing assertion.
        await TestWait.expect(
            "the service to start a handler", limit: .seconds(120),
            seen: { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        ) {
            !server.isRunning
                || (FileManager.default.fileExists(atPath: ready)
                    && HandlerLog(path: log).entries.contains(where: { !$0.isEnd && $0.pid == pid }))
        }
        kill(server.processIdentifier, SIGTERM)
        if holdingTheFirstHandler {
            let made = FileManager.default.createFile(atPath: hold, contents: nil)
            #expect(made, "cannot make \(hold), which the held handler waits for")
        }
        await Probe.finish(server)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let runID = (try? String(contentsOfFile: ready, encoding: .utf8)) ?? ""
        return (runID, text, server.terminationStatus, server.terminationReason == .exit)
    }

    /// Checks that every one of `signals` deliveries was completed exactly once and nothing is open.
    private func expectEachCompletedOnce(_ store: any SignalStore, signals: Int) async throws {
        let handlerLog = HandlerLog(path: log)
        let keys = Set(handlerLog.entries.map(\.key))
        #expect(keys.count == signals, "lost: \(signals - keys.count)")
        #expect(
            handlerLog.returnedKeys == keys,
            "handlers that never returned: \(keys.subtracting(handlerLog.returnedKeys))")
        var twice: [String] = []
        for key in keys where try await store.completions(of: DeliveryKey(key)).count != 1 { twice.append(key) }
        #expect(twice.isEmpty, "not completed exactly once: \(twice)")
        let left = try await store.statistics()
        #expect(left.pendingDeliveries + left.claimedDeliveries + left.deadDeliveries == 0)
    }

    package func aServiceStoppedBySIGTERMFinishesItsHandlerAndLeavesNothingToTakeOver(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let signals = 4
        let served = try await serveUntilSIGTERM(
            kind, signals: signals, handlerMilliseconds: 300, graceMilliseconds: 60_000)
        #expect(served.exited && served.status == 0, "\(served.output)")
        #expect(served.output.contains("stopped \(served.runID)"), "\(served.output)")
        // The run ended in the store: nothing waits for its proof of life to lapse.
        #expect(try await !store.runs(of: "app").recorded.contains(served.runID))
        // The handler that ran at the SIGTERM returned in the service process (none was cut short).
        let pid = HandlerLog(path: log).entries.first?.pid
        #expect(HandlerLog(path: log).interruptedRuns.isEmpty)
        #expect(HandlerLog(path: log).entries.contains { $0.isEnd && $0.pid == pid })
        // The next process of the component delivers the rest; no attempt was interrupted.
        let consumed = try await probe(kind, ["consume", "--component", "app", "--log", log, "--stop"])
        #expect(consumed.status == 0, "\(consumed.output)")
        #expect(consumed.output.contains(" 0 interrupted"), "\(consumed.output)")
        // Each handler ran once.
        let starts = HandlerLog(path: log).entries.filter { !$0.isEnd }
        #expect(starts.count == signals, "\(starts)")
        try await expectEachCompletedOnce(store, signals: signals)
    }

    package func aHandlerRunningPastTheServicesGracePeriodRunsAgainInTheNextProcessOnce(
        kind: StoreKind
    ) async throws {
        let store = try kind.open(folder.path)
        let signals = 2
        // Long enough to be running when the grace period ends on a loaded machine (the next
        // process runs both handlers again at this length).
        let served = try await serveUntilSIGTERM(
            kind, signals: signals, handlerMilliseconds: 8_000, graceMilliseconds: 100)
        #expect(served.exited && served.status == 0, "\(served.output)")
        #expect(try await !store.runs(of: "app").recorded.contains(served.runID))
        #expect(HandlerLog(path: log).interruptedRuns.count == 1)
        let consumed = try await probe(kind, ["consume", "--component", "app", "--log", log, "--stop"])
        #expect(consumed.status == 0, "\(consumed.output)")
        try await expectEachCompletedOnce(store, signals: signals)
    }

    package func theNextProcessAfterASIGTERMAdoptsTheConsumersWithoutTakingOverADeadRun(
        kind: StoreKind
    ) async throws {
        let store = try kind.open(folder.path)
        let signals = 3
        // The first handler holds until the SIGTERM was sent, so the stopped run leaves the other
        // consumers for the next process.
        let served = try await serveUntilSIGTERM(
            kind, signals: signals, handlerMilliseconds: 500, graceMilliseconds: 60_000, holdingTheFirstHandler: true)
        #expect(served.exited && served.status == 0, "\(served.output)")
        let left = try await store.consumers(of: "app").filter { $0.runID == served.runID }
        #expect(!left.isEmpty, "the stopped run left durable consumers for the next process")
        // The next process of the component adopts them: a hand-over from a run that ended, not the
        // takeover of a dead one.
        let consumed = try await probe(kind, ["consume", "--component", "app", "--log", log, "--stop"])
        #expect(consumed.status == 0, "\(consumed.output)")
        #expect(consumed.output.contains("took over 0 runs, 0 interrupted"), "\(consumed.output)")
        #expect(consumed.output.contains("\(left.count) consumers adopted"), "\(consumed.output)")
        #expect(consumed.output.contains(", 1 ended runs"), "\(consumed.output)")
        try await expectEachCompletedOnce(store, signals: signals)
    }

    /// The fields of the output lines that start with `first` and have `count` fields.
    private func fields(of outcome: Probe.Outcome, _ first: String, count: Int) -> [[String]] {
        var found: [[String]] = []
        for line in outcome.lines {
            let fields = line.split(separator: " ").map(String.init)
            if fields.count == count && fields[0] == first { found.append(fields) }
        }
        return found
    }

    package func aDeliverySpanInAnotherProcessIsLinkedToThePostsSpan(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let common = ["--log", log, "--signals", "2", "--prefix", "t"]
        let registered = try await probe(kind, ["trace-consume", "--component", "app"] + common)
        #expect(registered.status == 0, "\(registered.output)")
        let posted = try await probe(kind, ["trace-post", "--component", "sync"] + common)
        #expect(posted.status == 0, "\(posted.output)")
        let delivered = try await probe(kind, ["trace-consume", "--component", "app"] + common)
        #expect(delivered.status == 0, "\(delivered.output)")
        let posters = Set(fields(of: posted, "poster", count: 3).map { $0[1] + " " + $0[2] })
        let deliveries = fields(of: delivered, "delivery", count: 6)
        #expect(posters.count == 2, "\(posted.output)")
        #expect(deliveries.count == 2, "\(delivered.output)")
        // Each delivery span is linked to the span of its post, made in the other process.
        #expect(Set(deliveries.map { "\($0[2]) \($0[3])" }) == posters, "\(delivered.output)")
        for delivery in deliveries {
            #expect(delivery[1] != delivery[2], "a trace of its own, linked rather than a child")
            #expect(delivery[5] == "1", "attempt")
            #expect(try await store.completions(of: DeliveryKey(delivery[4])).count == 1, "delivery key \(delivery[4])")
        }
    }
}
