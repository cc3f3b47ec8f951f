import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import TestWaiting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Real processes, against a store that processes share: the probe registers, posts and consumes,
/// and is killed with SIGKILL at injected points (it kills itself there, which is `kill -9` at
/// exactly that point). Every test checks the store afterwards through the public API: no delivery
/// lost, none completed twice, every interrupted handler run again. (Faults only PostgreSQL has, such
/// as a server restart, are in PostgresProcessTests.)
package struct ProcessScenarios {
    package init() {}

    let folder = TemporaryFolder()
    var log: String { folder.path + "/handlers.log" }

    func probe(_ kind: StoreKind, _ arguments: [String]) async throws -> Probe.Outcome {
        try await Probe.run(arguments + kind.probeArguments(folder.path), folder: folder.path)
    }

    /// Registers one consumer per signal `prefix0`… for component `app`; returns the consumer ids.
    func register(
        _ kind: StoreKind, _ count: Int, prefix: String, mode: String = "once", handler: String = "record"
    ) async throws -> [String] {
        let outcome = try await probe(
            kind,
            [
                "register", "--component", "app", "--log", log, "--signals", "\(count)",
                "--prefix", prefix, "--mode", mode, "--handler", handler,
            ])
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

    package func twoProcessesOfDifferentComponentsExchangeSignalsWhileBothRun(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let ready = folder.path + "/ready"
        let output = folder.path + "/serve.out"
        let server = try Probe.start(
            [
                "serve", "--component", "app", "--log", log, "--signals", "5",
                "--prefix", "x", "--ready", ready,
            ] + kind.probeArguments(folder.path), output: output)
        // Waits (two minutes, scaled: TestWait) for the consumers to be registered; not a timing assertion.
        await TestWait.expect(
            "the serving probe to register its consumers", limit: .seconds(120),
            seen: { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        ) { FileManager.default.fileExists(atPath: ready) || !server.isRunning }
        let posted = try await probe(kind, ["post", "--component", "sync", "--signals", "5", "--prefix", "x"])
        #expect(posted.status == 0, "\(posted.output)")
        #expect(
            posted.lines.filter { $0.hasSuffix(" 1 1") }.count == 5, "each post reached one consumer: \(posted.output)")
        await Probe.finish(server)
        let served = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect(server.terminationStatus == 0, "\(served)")
        let handlerLog = HandlerLog(path: log)
        #expect(handlerLog.returnedKeys.count == 5)
        #expect(
            Set(handlerLog.entries.map(\.pid)) == [String(server.processIdentifier)],
            "delivered in the registering process")
        let left = try await store.statistics()
        #expect(left.consumers == 0 && left.signals == 0 && left.pendingDeliveries == 0 && left.completions == 5)
    }

    package func aDurableConsumerOfAProcessThatExitedIsDeliveredInTheNextProcessOfItsComponent(
        kind: StoreKind
    ) async throws {
        let store = try kind.open(folder.path)
        let consumers = try await register(kind, 3, prefix: "d")
        let posted = try await probe(kind, ["post", "--component", "sync", "--signals", "3", "--prefix", "d"])
        #expect(posted.status == 0, "\(posted.output)")
        let next = try await probe(kind, ["consume", "--component", "app", "--stop"])
        #expect(next.status == 0, "\(next.output)")
        #expect(next.output.contains("took over 1 runs"))
        #expect(next.output.contains("idle 3"))
        let handlerLog = HandlerLog(path: log)
        #expect(handlerLog.returnedKeys == Set(consumers.map { "\($0)/1" }))
        for consumer in consumers { #expect(try await completions(store, "\(consumer)/1") == 1) }
        #expect(try await store.statistics() == .init(completions: 3))
    }

    package func consumersTiedToAKilledRunAreRemovedByTheNextProcessAndNeverDelivered(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        // The registering process exits without stopping its run, as a crash would end it.
        let tied = try await probe(
            kind,
            [
                "register", "--component", "app", "--log", log, "--signals", "3", "--prefix", "t",
                "--lifetime", "run",
            ])
        #expect(tied.status == 0, "\(tied.output)")
        let posted = try await probe(kind, ["post", "--component", "sync", "--signals", "3", "--prefix", "t"])
        #expect(posted.lines.filter { $0.hasPrefix("posted ") }.count == 3, "\(posted.output)")
        let next = try await probe(kind, ["consume", "--component", "app", "--stop"])
        #expect(
            next.output.contains("took over 1 runs, 0 interrupted, 0 consumers adopted, 3 run-tied consumers removed"),
            "\(next.output)")
        #expect(next.output.contains("idle 0"))
        #expect(HandlerLog(path: log).entries.isEmpty)
        #expect(try await store.statistics() == SignalStoreStatistics())
    }

    /// Kills consumers at `point` until one finishes with nothing left open: 40 once consumers and
    /// 40 every-revision consumers, two revisions posted to each signal: 120 deliveries.
    package func killedConsumersLoseNoDeliveryAndCompleteNoneTwice(kind: StoreKind, point: String) async throws {
        let store = try kind.open(folder.path)
        var random = SeededRandom(seed: UInt64(point.utf8.count) &* 7919)
        let once = try await register(kind, 40, prefix: "k")
        let every = try await register(kind, 40, prefix: "k", mode: "every")
        for _ in 0..<2 {
            let posted = try await probe(kind, ["post", "--component", "sync", "--signals", "40", "--prefix", "k"])
            #expect(posted.status == 0, "\(posted.output)")
        }
        let expected = Set(once.map { "\($0)/1" } + every.flatMap { ["\($0)/1", "\($0)/2"] })

        let (kills, finished) = try await consumeUntilSettled(kind, store, processes: 2_000) {
            [
                "consume", "--component", "app", "--kill-at", point,
                "--kill-after", "\(Int.random(in: 1...2, using: &random))",
            ]
        }
        #expect(finished)
        #expect(kills >= 60, "every consumer process is killed after one or two deliveries")

        let left = try await store.statistics()
        #expect(left.pendingDeliveries == 0 && left.claimedDeliveries == 0 && left.deadDeliveries == 0)
        #expect(left.consumers == 40, "the once consumers ended; the every-revision ones stay")
        let tally = try await CompletionTally(store, expected)
        #expect(tally.lost.isEmpty && tally.completedTwice.isEmpty, "\(tally)")
        #expect(left.completions == expected.count)

        let handlerLog = HandlerLog(path: log)
        #expect(handlerLog.returnedKeys == expected, "every delivery's handler returned")
        #expect(handlerLog.startedAfterCompletion.isEmpty, "handlers started after their delivery was completed")
        let ends = handlerLog.entries.filter(\.isEnd).count
        switch point {
        case "beforeCompletion":
            // Each kill fell between a handler's return and its completion: that handler ran again.
            #expect(ends == expected.count + kills)
        case "insideHandler":
            #expect(ends == expected.count, "no handler that returned ran again")
            #expect(handlerLog.interruptedRuns.count == kills)
            for run in handlerLog.interruptedRuns {
                #expect(handlerLog.returned(run.key, after: run.index), "interrupted handler of \(run.key) ran again")
            }
        default:
            #expect(ends == expected.count, "no handler that returned ran again")
        }
        print(
            "signals.kill_test store=\(kind.name) point=\(point) kills=\(kills) deliveries=\(expected.count) lost=\(tally.lost.count) completed_twice=\(tally.completedTwice.count) dead=\(left.deadDeliveries) handler_returns=\(ends) started_after_completion=\(handlerLog.startedAfterCompletion.count)"
        )
    }

    /// Three consumer processes of the same component at once, each killed at random points: they
    /// take over each other's dead runs while the others are alive.
    package func concurrentConsumersKilledAtRandomPointsCompleteEveryDeliveryOnce(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let once = try await register(kind, 30, prefix: "c")
        let every = try await register(kind, 30, prefix: "c", mode: "every")
        for _ in 0..<2 {
            let posted = try await probe(kind, ["post", "--component", "sync", "--signals", "30", "--prefix", "c"])
            #expect(posted.status == 0, "\(posted.output)")
        }
        let expected = Set(once.map { "\($0)/1" } + every.flatMap { ["\($0)/1", "\($0)/2"] })
        let points = ["afterClaim", "insideHandler", "beforeCompletion"]
        let kills = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<3 {
                group.addTask {
                    var random = SeededRandom(seed: UInt64(worker) &+ 1_000)
                    var kills = 0
                    for _ in 0..<2_000 {
                        let outcome = try await probe(
                            kind,
                            [
                                "consume", "--component", "app",
                                "--kill-at", points[Int.random(in: 0..<3, using: &random)],
                                "--kill-after", "\(Int.random(in: 1...3, using: &random))",
                            ])
                        if outcome.killed {
                            kills += 1
                        } else {
                            #expect(outcome.status == 0, "\(outcome.output)")
                            if try await isSettled(store) { break }
                            // What is left is another worker's, alive or not yet seen dead: look again.
                            try await Task.sleep(for: .milliseconds(20))
                        }
                    }
                    return kills
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(kills >= 30)
        let left = try await store.statistics()
        #expect(left.pendingDeliveries == 0 && left.claimedDeliveries == 0 && left.deadDeliveries == 0)
        let tally = try await CompletionTally(store, expected)
        #expect(tally.lost.isEmpty && tally.completedTwice.isEmpty, "\(tally)")
        let handlerLog = HandlerLog(path: log)
        #expect(handlerLog.returnedKeys == expected)
        for run in handlerLog.interruptedRuns {
            #expect(handlerLog.returned(run.key, after: run.index), "interrupted handler of \(run.key) ran again")
        }
        #expect(handlerLog.startedAfterCompletion.isEmpty, "handlers started after their delivery was completed")
        print(
            "signals.kill_test store=\(kind.name) concurrent consumers=3 kills=\(kills) deliveries=\(expected.count) lost=\(tally.lost.count) completed_twice=\(tally.completedTwice.count) dead=\(left.deadDeliveries) started_after_completion=\(handlerLog.startedAfterCompletion.count)"
        )
    }

    /// Kills posters inside the post's transaction: a killed post leaves nothing, so posting again
    /// makes revision 1 and each consumer gets exactly one delivery.
    package func killedPostsLeaveNothingBehindAndPostingAgainDeliversOnce(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        var random = SeededRandom(seed: 42)
        let consumers = try await register(kind, 40, prefix: "m")
        var postedSignals: [Substring] = []
        var kills = 0
        while postedSignals.count < 40 {
            let outcome = try await probe(
                kind,
                [
                    "post", "--component", "sync", "--signals", "40", "--prefix", "m",
                    "--from", "\(postedSignals.count)", "--kill-at", "postBeforeCommit",
                    "--kill-after", "\(Int.random(in: 1...2, using: &random))",
                ])
            postedSignals += outcome.lines.filter { $0.hasPrefix("posted ") }
            if outcome.killed { kills += 1 } else { #expect(outcome.status == 0, "\(outcome.output)") }
            if kills > 1_000 { break }
        }
        #expect(kills >= 20)
        #expect(postedSignals.allSatisfy { $0.hasSuffix(" 1 1") }, "every post made revision 1 for one consumer")
        let consumed = try await probe(kind, ["consume", "--component", "app", "--stop"])
        #expect(consumed.output.contains("idle 40"), "\(consumed.output)")
        let tally = try await CompletionTally(store, consumers.map { "\($0)/1" })
        #expect(tally.lost.isEmpty && tally.completedTwice.isEmpty, "\(tally)")
        let left = try await store.statistics()
        #expect(left == .init(completions: 40))
        print(
            "signals.kill_test store=\(kind.name) point=postBeforeCommit kills=\(kills) deliveries=40 lost=\(tally.lost.count) completed_twice=\(tally.completedTwice.count) dead=\(left.deadDeliveries)"
        )
    }

    /// A handler that kills its own process on every attempt, posted before five good deliveries:
    /// processes of the component are started until nothing is open. The poison is dead after
    /// exactly `maximumAttempts` starts, with the reason that its process died, and never keeps the
    /// good ones from completing.
    package func aPoisonDeliveryIsDeadAfterItsAttemptsAndStarvesNoOther(kind: StoreKind) async throws {
        let store = try kind.open(folder.path)
        let maximumAttempts = 3
        let poison = try await register(kind, 1, prefix: "poison", handler: "poison")
        let good = try await register(kind, 5, prefix: "good")
        for (prefix, count) in [("poison", 1), ("good", 5)] {
            let posted = try await probe(
                kind, ["post", "--component", "sync", "--signals", "\(count)", "--prefix", prefix])
            #expect(posted.status == 0, "\(posted.output)")
        }
        let (kills, finished) = try await consumeUntilSettled(kind, store, processes: 40) {
            ["consume", "--component", "app", "--max-attempts", "\(maximumAttempts)", "--stop"]
        }
        #expect(finished, "nothing left open")
        let poisonKey = "\(try #require(poison.first))/1"
        let handlerLog = HandlerLog(path: log)
        let poisonStarts = handlerLog.entries.filter { !$0.isEnd && $0.key == poisonKey }.count
        #expect(poisonStarts == maximumAttempts, "the poison's handler started once per attempt")
        #expect(kills == maximumAttempts, "each start of the poison killed its process")
        let dead = try await store.deadDeliveries(of: "app")
        #expect(dead.map(\.key.rawValue) == [poisonKey])
        #expect(dead.first?.attempts == maximumAttempts)
        #expect(
            dead.first?.reason
                == "the process running its handler died (crashed or was killed) during attempt \(maximumAttempts)")
        var lost = 0
        var completedTwice = 0
        for consumer in good {
            switch try await completions(store, "\(consumer)/1") {
            case 0: lost += 1
            case 1: continue
            default: completedTwice += 1
            }
        }
        #expect(lost == 0 && completedTwice == 0, "every good delivery completed exactly once")
        #expect(handlerLog.returnedKeys == Set(good.map { "\($0)/1" }))
        #expect(handlerLog.startedAfterCompletion.isEmpty, "handlers started after their delivery was completed")
        print(
            "signals.poison_test store=\(kind.name) kills=\(kills) deliveries=6 lost=\(lost) completed_twice=\(completedTwice) dead=\(dead.count) poison_starts=\(poisonStarts) started_after_completion=\(handlerLog.startedAfterCompletion.count)"
        )
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

    /// Runs consumer processes of component `app` one after another (at most `processes`), each with
    /// the arguments `arguments` makes, until nothing is open; returns how many were killed and whether
    /// the store settled.
    func consumeUntilSettled(
        _ kind: StoreKind, _ store: any SignalStore, processes: Int, _ arguments: () -> [String]
    ) async throws -> (kills: Int, finished: Bool) {
        var kills = 0
        for _ in 0..<processes {
            let outcome = try await probe(kind, arguments())
            if outcome.killed {
                kills += 1
                continue
            }
            #expect(outcome.status == 0, "\(outcome.output)")
            if try await isSettled(store) { return (kills, true) }
            // The killed process's run still looked alive to this one (on PostgreSQL, until the server has
            // ended its connection, which releases its lock): the next process takes it over.
            try await Task.sleep(for: .milliseconds(20))
        }
        return (kills, false)
    }

    func completions(_ store: any SignalStore, _ key: String) async throws -> Int {
        try await store.completions(of: DeliveryKey(key)).count
    }
}

/// How many times each expected delivery was completed, from the store's history: those never
/// completed (lost) and those completed more than once.
struct CompletionTally: CustomStringConvertible {
    var lost: [String] = []
    var completedTwice: [String] = []

    init(_ store: any SignalStore, _ keys: some Sequence<String>) async throws {
        for key in keys {
            switch try await store.completions(of: DeliveryKey(key)).count {
            case 0: lost.append(key)
            case 1: continue
            default: completedTwice.append(key)
            }
        }
    }

    var description: String { "lost \(lost.sorted()), completed more than once \(completedTwice.sorted())" }
}

/// A small deterministic generator (SplitMix64), so a failing run can be repeated.
package struct SeededRandom: RandomNumberGenerator {
    var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
