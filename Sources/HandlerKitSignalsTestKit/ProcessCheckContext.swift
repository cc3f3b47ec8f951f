#if os(macOS) || os(Linux)
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// What a process check works with: the probe, the store arguments, the store opened in the test's
/// process, a folder for the handler log and the probes' output, and the assertions, which throw
/// `ConformanceFailure`.
struct ProcessCheckContext: Sendable {
    let check: String
    let probe: URL
    let folder: String
    let storeArguments: [String]
    let store: any SignalStore

    /// The log the probe's handlers write (`HandlerLog`).
    var log: String { folder + "/handlers.log" }

    typealias Outcome = ProbeProcess.Outcome

    /// Runs the probe with `arguments` (the store arguments appended) and waits for it.
    func probe(_ arguments: [String]) async throws -> Outcome {
        do {
            return try await ProbeProcess.run(probe, arguments + storeArguments, folder: folder)
        } catch let failure as ProbeProcess.LaunchFailure {
            throw self.failure(failure.description)
        }
    }

    /// Starts the probe with `arguments` (the store arguments appended), its output to the file
    /// `output`, without waiting for it.
    func start(_ arguments: [String], output: String) throws -> Process {
        do {
            return try ProbeProcess.start(probe, arguments + storeArguments, output: output)
        } catch let failure as ProbeProcess.LaunchFailure {
            throw self.failure(failure.description)
        }
    }

    /// Waits for `process` to end (without blocking a thread of the pool).
    func finish(_ process: Process) async {
        await ProbeProcess.finish(process)
    }

    /// Registers one consumer per signal `prefix0`… for component `app`; returns the consumer ids.
    func register(
        _ count: Int, prefix: String, mode: String = "once", handler: String = "record", lifetime: String = "durable"
    ) async throws -> [String] {
        let outcome = try await probe([
            "register", "--component", "app", "--log", log, "--signals", "\(count)", "--prefix", prefix,
            "--mode", mode, "--handler", handler, "--lifetime", lifetime,
        ])
        try expectSuccess(outcome, "registering \(count) consumers")
        return outcome.lines.compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count == 4 && fields[0] == "consumer" ? String(fields[1]) : nil
        }
    }

    /// Posts `prefix0`…`prefix<count - 1>` once each from component `sync`.
    func post(_ count: Int, prefix: String) async throws -> Outcome {
        let posted = try await probe(["post", "--component", "sync", "--signals", "\(count)", "--prefix", prefix])
        try expectSuccess(posted, "posting \(count) signals")
        return posted
    }

    /// Whether the store has no delivery left open (pending or claimed).
    func isSettled() async throws -> Bool {
        let left = try await store.statistics()
        return left.pendingDeliveries + left.claimedDeliveries == 0
    }

    func completions(_ key: String) async throws -> Int {
        try await store.completions(of: DeliveryKey(key)).count
    }

    /// Runs consumer processes of component `app` one after another (at most `processes`), each with
    /// the arguments `arguments` makes, until nothing is open; returns how many were killed and
    /// whether the store settled.
    func consumeUntilSettled(
        processes: Int, _ arguments: () -> [String]
    ) async throws -> (kills: Int, finished: Bool) {
        var kills = 0
        for _ in 0..<processes {
            let outcome = try await probe(arguments())
            if outcome.killed {
                kills += 1
                continue
            }
            try expectSuccess(outcome, "a consumer process")
            if try await isSettled() { return (kills, true) }
            // The killed process's run still looked alive to this one (on a server, until it has
            // ended the dead process's session): the next process takes it over.
            try await Task.sleep(for: .milliseconds(20))
        }
        return (kills, false)
    }

    /// Runs `workers` chains of consumer processes of component `app` at once, each process killed
    /// at a random point (after a claim, inside a handler, before a completion) the 1st to
    /// `latestKill`-th time it reaches it, until one finds nothing open; returns how many were killed.
    func consumeWithKills(workers: Int, latestKill: Int) async throws -> Int {
        let points = ["afterClaim", "insideHandler", "beforeCompletion"]
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var random = SeededRandom(seed: UInt64(worker) &+ 1_000)
                    var kills = 0
                    for _ in 0..<2_000 {
                        let outcome = try await probe([
                            "consume", "--component", "app",
                            "--kill-at", points[Int.random(in: 0..<3, using: &random)],
                            "--kill-after", "\(Int.random(in: 1...latestKill, using: &random))",
                        ])
                        if outcome.killed {
                            kills += 1
                        } else {
                            try expectSuccess(outcome, "consumer process of worker \(worker)")
                            if try await isSettled() { break }
                            // What is left is another worker's, alive or not yet seen dead: look again.
                            try await Task.sleep(for: .milliseconds(20))
                        }
                    }
                    return kills
                }
            }
            return try await group.reduce(0, +)
        }
    }

    /// Expects the store settled with each of `expected` (delivery keys) completed exactly once:
    /// nothing pending, claimed or dead, each completed once in the history, each one's handler
    /// returned, and no handler started after its delivery was completed. Returns what it read, for
    /// the check's own expectations and figures.
    func expectEachCompletedOnce(
        _ expected: Set<String>, line: Int = #line
    ) async throws -> (left: SignalStoreStatistics, tally: CompletionTally, log: HandlerLog) {
        let left = try await store.statistics()
        try expect(
            left.pendingDeliveries == 0 && left.claimedDeliveries == 0 && left.deadDeliveries == 0,
            "expected no pending, claimed or dead delivery, found \(left)", line: line)
        let tally = try await CompletionTally(store, expected)
        try expect(
            tally.isExact, "expected each of the \(expected.count) deliveries completed once, found \(tally)",
            line: line)
        let log = HandlerLog(path: self.log)
        try expectEqual(log.returnedKeys, expected, "deliveries whose handler returned", line: line)
        try expectEqual(
            log.startedAfterCompletion, [], "handlers started after their delivery was completed", line: line)
        return (left, tally, log)
    }

    /// Polls `condition` every 10 ms until it holds or `limit` has passed; whether it held.
    func poll(limit: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try await condition()
    }

    func failure(_ message: String, line: Int = #line) -> ConformanceFailure {
        ConformanceFailure(check: check, message: message, line: line)
    }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String, line: Int = #line) throws {
        if !condition { throw failure(message(), line: line) }
    }

    func expectEqual<T: Equatable>(_ found: T, _ expected: T, _ what: String, line: Int = #line) throws {
        if found != expected { throw failure("\(what): expected \(expected), found \(found)", line: line) }
    }

    /// A probe that exited with status 0; the failure keeps its output.
    func expectSuccess(_ outcome: Outcome, _ what: String, line: Int = #line) throws {
        if outcome.status != 0 || outcome.killed {
            throw failure(
                "\(what): expected the probe to exit with status 0, found \(outcome.killed ? "SIGKILL" : "status \(outcome.status)"); its output:\n\(outcome.output)",
                line: line)
        }
    }
}

/// How many times each expected delivery was completed, from the store's history: those never
/// completed (lost) and those completed more than once.
package struct CompletionTally: CustomStringConvertible {
    package var lost: [String] = []
    package var completedTwice: [String] = []

    package init(_ store: any SignalStore, _ keys: some Sequence<String>) async throws {
        for key in keys {
            switch try await store.completions(of: DeliveryKey(key)).count {
            case 0: lost.append(key)
            case 1: continue
            default: completedTwice.append(key)
            }
        }
    }

    var isExact: Bool { lost.isEmpty && completedTwice.isEmpty }

    package var description: String { "lost \(lost.sorted()), completed more than once \(completedTwice.sorted())" }
}

/// The probe handlers' log: `start <key> <item> <pid>` and `end <key> <item> <pid>` lines, and
/// `late <key> <item> <pid>` before the start of a handler whose delivery was already completed.
package struct HandlerLog {
    package struct Entry: Hashable {
        package var isEnd: Bool
        package var key: String
        package var item: Int
        package var pid: String
    }

    package var entries: [Entry]
    /// The keys of handler starts whose delivery had a completion already, one per such start.
    package var startedAfterCompletion: [String]
    /// The keys of handler starts before their delayed post's time, one per such start.
    package var startedEarly: [String]

    package init(path: String) {
        let lines = ProbeLog.lines(path).map { $0.split(separator: " ") }.filter { $0.count == 4 }
        startedAfterCompletion = lines.filter { $0[0] == "late" }.map { String($0[1]) }
        startedEarly = lines.filter { $0[0] == "early" }.map { String($0[1]) }
        entries = lines.filter { $0[0] == "start" || $0[0] == "end" }.map { fields in
            Entry(isEnd: fields[0] == "end", key: String(fields[1]), item: Int(fields[2]) ?? -1, pid: String(fields[3]))
        }
    }

    /// Keys whose handler returned at least once.
    package var returnedKeys: Set<String> { Set(entries.filter(\.isEnd).map(\.key)) }

    /// Handler runs that started and never returned (their process was killed inside the handler):
    /// each as the key and the index of its `start` line.
    package var interruptedRuns: [(key: String, index: Int)] {
        entries.indices.compactMap { index in
            let entry = entries[index]
            guard !entry.isEnd else { return nil }
            let returned = entries[(index + 1)...].contains { $0.isEnd && $0.key == entry.key && $0.pid == entry.pid }
            return returned ? nil : (entry.key, index)
        }
    }

    /// Where handlers broke the order of their ordering keys (each delivery's key given by
    /// `orderingKey` from its payload's item): a start of an earlier item of a key after a later one
    /// had started, or a start of a later item before the handler of the one before it had returned.
    /// Runs of one item again (after a kill) keep the order.
    package func orderViolations(orderingKey: (Int) -> String) -> [String] {
        var started: [String: Int] = [:]
        var returned: Set<Int> = []
        var violations: [String] = []
        for entry in entries {
            if entry.isEnd {
                returned.insert(entry.item)
                continue
            }
            let key = orderingKey(entry.item)
            if let previous = started[key] {
                if entry.item < previous {
                    violations.append("\(entry.key) (item \(entry.item)) started after item \(previous) of \(key) had")
                } else if entry.item > previous && !returned.contains(previous) {
                    violations.append(
                        "\(entry.key) (item \(entry.item)) started before item \(previous) of \(key) had returned")
                }
            }
            started[key] = max(started[key] ?? entry.item, entry.item)
        }
        return violations
    }

    /// Whether the handler of `key` returned after the line at `index`.
    package func returned(_ key: String, after index: Int) -> Bool {
        entries[(index + 1)...].contains { $0.isEnd && $0.key == key }
    }
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
#endif
