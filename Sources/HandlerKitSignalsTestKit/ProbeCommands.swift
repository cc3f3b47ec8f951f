#if os(macOS) || os(Linux)
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The commands of ``SignalStoreProbe``, each followed by the store's arguments:
///
///     register --component C --log LOG --signals N [--prefix S] [--mode once|every] [--lifetime durable|run|queue]
///              [--handler record|poison] [--stop]
///         registers one consumer per signal S0…S(N-1), printing `consumer <id> <signal> <mode>` for each,
///         and exits without stopping (the run dies with the process) unless --stop
///     post --component C --signals N [--prefix S] [--from I] [--delay-ms D] [--bulk B] [--revisions R]
///          [--ordering-keys K] [--kill-at P --kill-after K]
///         posts S(I)…S(N-1), payload item = index, delayed by D milliseconds (`notBefore`, also as the
///         payload's `due`), B at a time in one bulk post when given; with R, each signal R times in a
///         row, payload item = the post's number (0…R-1); with K, ordering key `key<item % K>`;
///         prints `posted <signal> <revision> <deliveries>` for each once it is stored
///     consume --component C [--kill-at P --kill-after K] [--stop-at P --ready FILE] [--max-attempts N] [--stop]
///         starts a run (taking over dead ones), prints `run <id> took over <dead runs> runs, <interrupted>
///         interrupted, <adopted> consumers adopted, <removed> run-tied consumers removed, <ended> ended runs`,
///         delivers until nothing is open, prints `idle <completed>` (and `problem <error>` for each
///         problem the center reports)
///     serve --component C --log LOG --signals N [--prefix S] --ready FILE
///         starts a run with automatic delivery, registers one once consumer per signal, creates FILE,
///         and exits when all of them were delivered (woken by the posts of other processes)
///     open
///         prints `open <pending + claimed deliveries>` of the whole store
///     check --log LOG --consumers FILE --posts FILE
///         verifies that every delivery registered and posted (the register and post outputs) was
///         completed exactly once and every interrupted handler ran again; prints the counts
///
/// Kill points: postBeforeCommit, afterClaim, insideHandler, beforeCompletion.
struct ProbeCommands {
    static let names = ["register", "post", "consume", "serve", "open", "check"]

    let options: ProbeOptions
    let store: any SignalStore

    func run(_ command: String) async throws {
        switch command {
        case "register": try await register()
        case "post": try await post()
        case "consume": try await consume()
        case "serve": try await serve()
        case "open":
            let statistics = try await store.statistics()
            say("open \(statistics.pendingDeliveries + statistics.claimedDeliveries)")
        case "check":
            func lines(_ name: String) throws -> [Substring] {
                try String(contentsOfFile: try options.string(name), encoding: .utf8).split(separator: "\n")
            }
            let passed = try await ProbeVerification.run(
                store: store, log: try options.string("log"), consumerLines: try lines("consumers"),
                postLines: try lines("posts"))
            if !passed { throw ProbeError("check failed") }
        default: throw ProbeError("unknown command \(command)")
        }
    }

    var component: String { get throws { try options.string("component", default: "probe") } }
    var prefix: String { get throws { try options.string("prefix", default: "s") } }

    var retry: RetryPolicy {
        get throws {
            RetryPolicy(
                maximumAttempts: try options.int("max-attempts", default: 1_000), firstDelay: .milliseconds(1),
                maximumDelay: .milliseconds(20))
        }
    }

    func register() async throws {
        let center = try await SignalCenter.start(
            component: try component, store: store, options: .init(retry: try retry, deliversAutomatically: false))
        let log = try options.string("log")
        let mode = try options.string("mode", default: "once") == "every" ? DeliveryMode.everyRevision : .once
        let lifetimeName = try options.string("lifetime", default: "durable")
        guard let lifetime = ConsumerLifetime(rawValue: lifetimeName) else {
            throw ProbeError("unknown lifetime \(lifetimeName): expected durable, run or queue")
        }
        let handlerKind = try options.string("handler", default: "record")
        guard ["record", "poison"].contains(handlerKind) else {
            throw ProbeError("unknown handler \(handlerKind): expected record or poison")
        }
        let prefix = try prefix
        for index in 0..<(try options.int("signals")) {
            let handler =
                handlerKind == "poison" ? try ProbeHandlers.poison(log: log) : try ProbeHandlers.record(log: log)
            let consumer = try await center.register(
                handler, for: SignalID("\(prefix)\(index)"), lifetime: lifetime, delivery: mode)
            say("consumer \(consumer) \(prefix)\(index) \(mode == .once ? "once" : "every")")
        }
        if options.stops { try await center.stop() }
    }

    func post() async throws {
        let center = try await SignalCenter.start(
            component: try component, store: store, options: .init(deliversAutomatically: false))
        let prefix = try prefix
        let delay = try options.int("delay-ms", default: 0)
        let bulk = max(1, try options.int("bulk", default: 1))
        let revisions = max(1, try options.int("revisions", default: 1))
        let orderingKeys = try options.int("ordering-keys", default: 0)
        let (first, end) = (try options.int("from", default: 0), try options.int("signals"))
        // Each signal `revisions` times in a row; the payload's item is the signal's index, or, when
        // a signal is posted more than once, the number of the post (0, 1, …), which picks its key.
        let items = (first < end ? Array(first..<end) : []).flatMap { index in
            (0..<revisions).map { post in (index: index, item: revisions == 1 ? index : post) }
        }
        for start in stride(from: 0, to: items.count, by: bulk) {
            let posts = items[start..<min(start + bulk, items.count)].map { index, item in
                var payload: SignalPayload = ["item": item]
                var due: Date?
                if delay > 0 {
                    due = Date().addingTimeInterval(Double(delay) / 1_000)
                    payload.set("due", due?.timeIntervalSince1970)
                }
                return SignalPost(
                    SignalID("\(prefix)\(index)"), payload: payload, notBefore: due,
                    orderingKey: orderingKeys > 0 ? "key\(item % orderingKeys)" : nil)
            }
            let results =
                bulk == 1
                ? [
                    try await center.post(
                        posts[0].signal, payload: posts[0].payload, notBefore: posts[0].notBefore,
                        orderingKey: posts[0].orderingKey)
                ]
                : try await center.post(posts)
            for result in results { say("posted \(result.signalID.rawValue) \(result.revision) \(result.deliveries)") }
        }
        try await center.stop()
    }

    func consume() async throws {
        var centerOptions = SignalCenter.Options(
            retry: try retry, deliversAutomatically: false, onProblem: { say("problem \($0)") })
        centerOptions.faultHook = ProbeFaults.centerHook
        let center = try await SignalCenter.start(component: try component, store: store, options: centerOptions)
        let takeover = center.takeover
        say(
            "run \(center.runID) took over \(takeover.deadRuns.count) runs, \(takeover.interruptedDeliveries) interrupted, "
                + "\(takeover.adoptedConsumers) consumers adopted, \(takeover.removedConsumers) run-tied consumers removed, "
                + "\(takeover.endedRuns.count) ended runs"
        )
        say("idle \(try await center.deliverUntilNothingIsOpen())")
        if options.stops { try await center.stop() }
    }

    func serve() async throws {
        let center = try await SignalCenter.start(
            component: try component, store: store, options: .init(retry: try retry))
        let log = try options.string("log")
        let prefix = try prefix
        for index in 0..<(try options.int("signals")) {
            _ = try await center.register(try ProbeHandlers.record(log: log), for: SignalID("\(prefix)\(index)"))
        }
        _ = FileManager.default.createFile(atPath: try options.string("ready"), contents: Data(center.runID.utf8))
        // The deliveries run in the center's own task, woken by other processes' posts; this only
        // notices when they are all done, so the process can exit.
        while try await !center.consumers().filter({ $0.runID == center.runID }).isEmpty {
            try await Task.sleep(for: .milliseconds(5))
        }
        say("served")
        try await center.stop()
    }
}
extension SignalCenter {
    /// Delivers what is due until the run has no delivery left open (pending or claimed), a pass
    /// every millisecond; returns how many deliveries were completed. A probe process's way to finish
    /// its work before it reports and exits.
    package func deliverUntilNothingIsOpen() async throws -> Int {
        var completed = 0
        while true {
            completed += try await deliverDue()
            if try await openDeliveries() == 0 { return completed }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
#endif
