#if os(macOS) || os(Linux)
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

extension ProcessChecks {
    static let kills: [SignalStoreProcessChecks.Check] = [
        .init(
            name: "three consumer processes at once, killed at random points, complete every delivery once",
            body: { try await concurrentConsumers($0, lifetime: "durable") }),
        .init(
            name:
                "three worker processes of a work queue, each running up to four handlers at once and killed at random points, complete every delivery once",
            body: { try await concurrentConsumers($0, lifetime: "queue") }),
        .init(
            name: "killed posts leave nothing behind, and posting again delivers once",
            body: { try await killedPosts($0, bulk: 1) }),
        .init(
            name:
                "killed bulk posts (8 signals each) leave none of their posts behind, and posting again delivers once",
            body: { try await killedPosts($0, bulk: 8) }),
        .init(
            name: "a poison delivery that kills its process is dead after its attempts and starves no other",
            body: poisonDelivery),
    ]

    /// Kills consumers at `point` until one finishes with nothing left open: 40 once consumers and
    /// 40 every-revision consumers, two revisions posted to each signal: 120 deliveries.
    static func killedConsumers(_ point: String) -> SignalStoreProcessChecks.Check {
        .init(name: "consumers killed at \(point) lose no delivery and complete none twice") { c in
            try await killedConsumers(c, point: point)
        }
    }

    static func killedConsumers(_ c: ProcessCheckContext, point: String) async throws -> String {
        var random = SeededRandom(seed: UInt64(point.utf8.count) &* 7919)
        let once = try await c.register(40, prefix: "k")
        let every = try await c.register(40, prefix: "k", mode: "every")
        for _ in 0..<2 { _ = try await c.post(40, prefix: "k") }
        let expected = Set(once.map { "\($0)/1" } + every.flatMap { ["\($0)/1", "\($0)/2"] })

        let (kills, finished) = try await c.consumeUntilSettled(processes: 2_000) {
            [
                "consume", "--component", "app", "--kill-at", point,
                "--kill-after", "\(Int.random(in: 1...2, using: &random))",
            ]
        }
        try c.expect(finished, "expected the store to settle within 2000 consumer processes (\(kills) killed)")
        try c.expect(
            kills >= 60,
            "expected every consumer process to be killed after one or two deliveries, found \(kills) kills")

        let (left, tally, handlerLog) = try await c.expectEachCompletedOnce(expected)
        try c.expectEqual(left.consumers, 40, "consumers left (the once consumers ended; the every-revision ones stay)")
        try c.expectEqual(left.completions, expected.count, "completions")
        let ends = handlerLog.entries.filter(\.isEnd).count
        switch point {
        case "beforeCompletion":
            // Each kill fell between a handler's return and its completion: that handler ran again.
            try c.expectEqual(ends, expected.count + kills, "handler returns (one more per kill)")
        case "insideHandler":
            try c.expectEqual(ends, expected.count, "handler returns (no handler that returned ran again)")
            try c.expectEqual(handlerLog.interruptedRuns.count, kills, "handlers interrupted by a kill")
            for run in handlerLog.interruptedRuns {
                try c.expect(
                    handlerLog.returned(run.key, after: run.index),
                    "expected the interrupted handler of \(run.key) to run again, found it did not")
            }
        default:
            try c.expectEqual(ends, expected.count, "handler returns (no handler that returned ran again)")
        }
        return
            "point=\(point) kills=\(kills) deliveries=\(expected.count) lost=\(tally.lost.count) completed_twice=\(tally.completedTwice.count) dead=\(left.deadDeliveries) handler_returns=\(ends) started_after_completion=\(handlerLog.startedAfterCompletion.count)"
    }

    /// Three consumer processes of the same component at once, each killed at random points: they
    /// take over each other's dead runs while the others are alive. With `lifetime` `queue` the
    /// consumers are the component's work queue's, whose deliveries all three processes claim, up to
    /// four at once each: a process is killed at the 1st to 6th time it reaches its point (its four
    /// first handlers reach each point together), so that some die before their first completions
    /// commit and some after.
    static func concurrentConsumers(_ c: ProcessCheckContext, lifetime: String) async throws -> String {
        let latestKill = lifetime == "queue" ? 6 : 3
        let once = try await c.register(30, prefix: "c", lifetime: lifetime)
        let every = try await c.register(30, prefix: "c", mode: "every", lifetime: lifetime)
        for _ in 0..<2 { _ = try await c.post(30, prefix: "c") }
        let expected = Set(once.map { "\($0)/1" } + every.flatMap { ["\($0)/1", "\($0)/2"] })
        let kills = try await c.consumeWithKills(workers: 3, latestKill: latestKill)
        try c.expect(kills >= 30, "expected at least 30 consumer processes killed, found \(kills)")
        let (left, tally, handlerLog) = try await c.expectEachCompletedOnce(expected)
        for run in handlerLog.interruptedRuns {
            try c.expect(
                handlerLog.returned(run.key, after: run.index),
                "expected the interrupted handler of \(run.key) to run again, found it did not")
        }
        return
            "concurrent consumers=3 lifetime=\(lifetime) kills=\(kills) deliveries=\(expected.count) lost=\(tally.lost.count) completed_twice=\(tally.completedTwice.count) dead=\(left.deadDeliveries) started_after_completion=\(handlerLog.startedAfterCompletion.count)"
    }

    /// Kills posters inside the post's transaction (of `bulk` posts): a killed post leaves nothing,
    /// so posting again makes revision 1 and each consumer gets exactly one delivery.
    static func killedPosts(_ c: ProcessCheckContext, bulk: Int) async throws -> String {
        var random = SeededRandom(seed: 42)
        let consumers = try await c.register(40, prefix: "m")
        var postedSignals: [Substring] = []
        var kills = 0
        while postedSignals.count < 40 {
            let outcome = try await c.probe([
                "post", "--component", "sync", "--signals", "40", "--prefix", "m",
                "--from", "\(postedSignals.count)", "--bulk", "\(bulk)", "--kill-at", "postBeforeCommit",
                "--kill-after", "\(Int.random(in: 1...2, using: &random))",
            ])
            postedSignals += outcome.lines.filter { $0.hasPrefix("posted ") }
            if outcome.killed { kills += 1 } else { try c.expectSuccess(outcome, "a poster") }
            if kills > 1_000 { break }
        }
        // Each poster is killed in its first or second transaction: 40 posts take about 40 / bulk × 2 posters.
        let expectedKills = bulk == 1 ? 20 : 4
        try c.expect(
            kills >= expectedKills,
            "expected at least \(expectedKills) posters killed inside their post, found \(kills) (a store kills there only "
                + "when its post calls `SignalStoreProbe.Opening.postBeforeCommit` before its commit)")
        try c.expect(
            postedSignals.allSatisfy { $0.hasSuffix(" 1 1") },
            "expected every post to make revision 1 for one consumer, found:\n\(postedSignals.joined(separator: "\n"))")
        let consumed = try await c.probe(["consume", "--component", "app", "--stop"])
        try c.expectSuccess(consumed, "the consumer process")
        try c.expect(
            consumed.output.contains("idle 40"), "expected 40 deliveries completed, found:\n\(consumed.output)")
        let tally = try await CompletionTally(c.store, consumers.map { "\($0)/1" })
        try c.expect(tally.isExact, "expected each of the 40 deliveries completed once, found \(tally)")
        let left = try await c.store.statistics()
        try c.expectEqual(left, .only(completions: 40), "what the store holds")
        return
            "point=postBeforeCommit bulk=\(bulk) kills=\(kills) deliveries=40 lost=\(tally.lost.count) completed_twice=\(tally.completedTwice.count) dead=\(left.deadDeliveries)"
    }

    /// A handler that kills its own process on every attempt, posted before five good deliveries:
    /// processes of the component are started until nothing is open. The poison is dead after
    /// exactly `maximumAttempts` starts, with the reason that its process died, and never keeps the
    /// good ones from completing.
    static func poisonDelivery(_ c: ProcessCheckContext) async throws -> String {
        let maximumAttempts = 3
        let poison = try await c.register(1, prefix: "poison", handler: "poison")
        let good = try await c.register(5, prefix: "good")
        _ = try await c.post(1, prefix: "poison")
        _ = try await c.post(5, prefix: "good")
        let (kills, finished) = try await c.consumeUntilSettled(processes: 40) {
            ["consume", "--component", "app", "--max-attempts", "\(maximumAttempts)", "--stop"]
        }
        try c.expect(finished, "expected nothing left open after 40 consumer processes (\(kills) killed)")
        guard let poisonConsumer = poison.first else { throw c.failure("expected the poison consumer, found none") }
        let poisonKey = "\(poisonConsumer)/1"
        let handlerLog = HandlerLog(path: c.log)
        let poisonStarts = handlerLog.entries.filter { !$0.isEnd && $0.key == poisonKey }.count
        try c.expectEqual(poisonStarts, maximumAttempts, "starts of the poison's handler (one per attempt)")
        try c.expectEqual(kills, maximumAttempts, "processes the poison killed (one per start)")
        let dead = try await c.store.deadDeliveries(of: "app")
        try c.expectEqual(dead.map(\.key.rawValue), [poisonKey], "dead deliveries")
        try c.expectEqual(dead.first?.attempts, maximumAttempts, "the poison's attempts")
        try c.expectEqual(
            dead.first?.reason,
            "the process running its handler died (crashed or was killed) during attempt \(maximumAttempts)",
            "the poison's reason")
        let tally = try await CompletionTally(c.store, good.map { "\($0)/1" })
        try c.expect(tally.isExact, "expected every good delivery completed exactly once, found \(tally)")
        try c.expectEqual(handlerLog.returnedKeys, Set(good.map { "\($0)/1" }), "deliveries whose handler returned")
        try c.expectEqual(handlerLog.startedAfterCompletion, [], "handlers started after their delivery was completed")
        return
            "poison kills=\(kills) deliveries=6 lost=\(tally.lost.count) completed_twice=\(tally.completedTwice.count) dead=\(dead.count) poison_starts=\(poisonStarts) started_after_completion=\(handlerLog.startedAfterCompletion.count)"
    }
}
#endif
