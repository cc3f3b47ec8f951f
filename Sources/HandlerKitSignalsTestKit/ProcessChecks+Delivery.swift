#if os(macOS) || os(Linux)
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The checks of `SignalStoreProcessChecks`, each in a new folder on a new, empty store.
enum ProcessChecks {
    static let delivery: [SignalStoreProcessChecks.Check] = [
        .init(
            name: "two processes of different components exchange signals while both run",
            body: twoProcessesExchangeSignals),
        .init(
            name: "a durable consumer of a process that exited is delivered in the next process of its component",
            body: durableConsumerInNextProcess),
        .init(
            name: "consumers tied to a killed run are removed by the next process and never delivered",
            body: runTiedConsumersRemoved),
        .init(
            name:
                "delayed deliveries survive the processes killed before and inside them, and none starts before its time",
            body: delayedDeliveriesSurviveKills),
    ]

    /// A serving process registers consumers and delivers by itself, woken by another process's posts.
    static func twoProcessesExchangeSignals(_ c: ProcessCheckContext) async throws -> String {
        let ready = c.folder + "/ready"
        let output = c.folder + "/serve.out"
        let server = try c.start(
            [
                "serve", "--component", "app", "--log", c.log, "--signals", "5", "--prefix", "x", "--ready", ready,
            ], output: output)
        var served: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        // Waits (up to two minutes) for the consumers to be registered; not a timing assertion.
        let registered = try await c.poll(limit: .seconds(120)) {
            FileManager.default.fileExists(atPath: ready) || !server.isRunning
        }
        guard registered, server.isRunning else {
            if server.isRunning { server.terminate() }
            await c.finish(server)
            throw c.failure(
                "expected the serving probe to register its consumers and keep running, found "
                    + (registered ? "it exited" : "no ready file after two minutes") + "; its output:\n\(served)")
        }
        let posted = try await c.post(5, prefix: "x")
        try c.expectEqual(
            posted.lines.filter { $0.hasSuffix(" 1 1") }.count, 5,
            "posts that made revision 1 for one consumer; the poster's output:\n\(posted.output)\n")
        // The server exits once every consumer was delivered; waits for that (a server that never
        // delivers is ended after two minutes).
        let exited = try await c.poll(limit: .seconds(120)) { !server.isRunning }
        if !exited { server.terminate() }
        await c.finish(server)
        try c.expect(
            exited && server.terminationStatus == 0,
            "expected the serving probe to deliver the 5 posts and exit with status 0, found "
                + (exited ? "status \(server.terminationStatus)" : "it still running after two minutes")
                + "; its output:\n\(served)")
        let handlerLog = HandlerLog(path: c.log)
        try c.expectEqual(handlerLog.returnedKeys.count, 5, "handlers that returned")
        try c.expectEqual(
            Set(handlerLog.entries.map(\.pid)), [String(server.processIdentifier)],
            "the processes that ran the handlers (delivered in the registering process)")
        let left = try await c.store.statistics()
        try c.expect(
            left.consumers == 0 && left.signals == 0 && left.pendingDeliveries == 0 && left.completions == 5,
            "expected no consumer, signal or pending delivery left and 5 completions, found \(left)")
        return ""
    }

    /// Durable consumers registered by a process that exited are delivered by the next process of
    /// their component, which takes over the dead run.
    static func durableConsumerInNextProcess(_ c: ProcessCheckContext) async throws -> String {
        let consumers = try await c.register(3, prefix: "d")
        _ = try await c.post(3, prefix: "d")
        let next = try await c.probe(["consume", "--component", "app", "--stop"])
        try c.expectSuccess(next, "the next process of the component")
        try c.expect(
            next.output.contains("took over 1 runs") && next.output.contains("idle 3"),
            "expected the next process to take over 1 run and complete 3 deliveries, found:\n\(next.output)")
        let handlerLog = HandlerLog(path: c.log)
        try c.expectEqual(
            handlerLog.returnedKeys, Set(consumers.map { "\($0)/1" }), "deliveries whose handler returned")
        for consumer in consumers {
            try c.expectEqual(try await c.completions("\(consumer)/1"), 1, "completions of \(consumer)/1")
        }
        try c.expectEqual(try await c.store.statistics(), .only(completions: 3), "what the store holds")
        return ""
    }

    /// The registering process exits without stopping its run, as a crash would end it: its run-tied
    /// consumers are removed by the next process and their signals are never delivered.
    static func runTiedConsumersRemoved(_ c: ProcessCheckContext) async throws -> String {
        _ = try await c.register(3, prefix: "t", lifetime: "run")
        let posted = try await c.post(3, prefix: "t")
        try c.expectEqual(
            posted.lines.filter { $0.hasPrefix("posted ") }.count, 3, "posts; the output:\n\(posted.output)\n")
        let next = try await c.probe(["consume", "--component", "app", "--stop"])
        try c.expectSuccess(next, "the next process of the component")
        try c.expect(
            next.output.contains("took over 1 runs, 0 interrupted, 0 consumers adopted, 3 run-tied consumers removed")
                && next.output.contains("idle 0"),
            "expected the next process to take over the run, remove its 3 run-tied consumers and deliver nothing, found:\n\(next.output)"
        )
        try c.expect(
            HandlerLog(path: c.log).entries.isEmpty,
            "expected no handler to run, found the log:\n\(ProbeLog.lines(c.log).joined(separator: "\n"))")
        try c.expectEqual(try await c.store.statistics(), SignalStoreStatistics(), "what the store holds")
        return ""
    }

    /// Consumers registered by a process that exited get posts delayed by 1.5 s; the next process of
    /// their component takes them over and is killed inside the first delayed handler it starts; the
    /// one after it completes them. Each handler checks that it started at or after its post's time.
    static func delayedDeliveriesSurviveKills(_ c: ProcessCheckContext) async throws -> String {
        let consumers = try await c.register(3, prefix: "t")
        let posted = try await c.probe([
            "post", "--component", "sync", "--signals", "3", "--prefix", "t", "--delay-ms", "1500",
        ])
        try c.expectSuccess(posted, "posting 3 delayed signals")
        let killed = try await c.probe([
            "consume", "--component", "app", "--kill-at", "insideHandler", "--kill-after", "1",
        ])
        try c.expect(
            killed.killed, "expected the first consumer process to be killed inside a handler:\n\(killed.output)")
        let (kills, finished) = try await c.consumeUntilSettled(processes: 20) {
            ["consume", "--component", "app", "--stop"]
        }
        try c.expect(
            finished && kills == 0, "expected the next consumer process to settle the store, found \(kills) kills")
        let handlerLog = HandlerLog(path: c.log)
        try c.expectEqual(handlerLog.startedEarly, [], "handlers started before their post's time")
        try c.expectEqual(handlerLog.startedAfterCompletion, [], "handlers started after their delivery was completed")
        try c.expectEqual(
            handlerLog.returnedKeys, Set(consumers.map { "\($0)/1" }), "deliveries whose handler returned")
        for consumer in consumers {
            try c.expectEqual(try await c.completions("\(consumer)/1"), 1, "completions of \(consumer)/1")
        }
        let interrupted = handlerLog.interruptedRuns.count
        try c.expectEqual(interrupted, 1, "handler runs interrupted by the kill")
        return "kills=1 deliveries=3 lost=0 completed_twice=0 started_early=0 interrupted=\(interrupted)"
    }
}
#endif
