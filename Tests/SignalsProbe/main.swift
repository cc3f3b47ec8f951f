// handlerkit-signals-probe: a small program the signal tests (and Scripts/signal-soak.sh) run as
// real processes, and kill at chosen points.
//
//   register --db PATH --component C --log LOG --signals N [--prefix S] [--mode once|every] [--lifetime durable|run]
//            [--flaky F | --handler poison]
//       registers one consumer per signal S0…S(N-1) and exits without stopping (the run dies with the process);
//       a poison handler kills its process on every attempt
//   post --db PATH --component C --signals N [--prefix S] [--from I] [--kill-at P --kill-after K]
//       posts S(I)…S(N-1), payload item = index; prints `posted <signal> <revision> <deliveries>` after each
//   consume --db PATH --component C [--kill-at P --kill-after K] [--stop-at P --ready FILE] [--max-attempts N] [--stop]
//       starts a run (taking over dead ones), prints what it took over (`run <id> took over <dead runs> runs, …,
//       <ended runs> ended runs`), delivers until nothing is open, prints `idle <completed>`
//       (and `problem <error>` for each problem the center reports)
//   open --db PATH
//       prints `open <pending + claimed deliveries>` of the whole store
//   check --db PATH --log LOG --consumers FILE --posts FILE
//       verifies that every delivery registered and posted (the register and post outputs) was
//       completed exactly once and every interrupted handler ran again; prints the counts
//   serve --db PATH --component C --log LOG --signals N [--prefix S] --ready FILE
//       starts a run with automatic delivery, registers one once consumer per signal, creates FILE,
//       and exits when all of them were delivered (woken by the posts of other processes)
//   suspend --db PATH --component C --log LOG --ready FILE --suspend-file FILE --suspended FILE …
//       suspends its center when told to, and resumes it when told to (ProbeSuspend.swift)
//   service --db PATH --component C --log LOG --ready FILE --signals N …
//       runs its center in a ServiceGroup that shuts down gracefully on SIGTERM (ProbeService.swift)
//   trace-post, trace-consume --db PATH --component C --signals N …
//       post and deliver with an in-memory tracer, printing the spans (ProbeService.swift)
//   take-over-serve --db PATH --component C --log LOG --signals N --prefix S --ready FILE --go FILE --stop-file FILE …
//       a long-running process that delivers and takes over dead runs of its component (ProbeTakeover.swift)
//   hold --postgres URL --component C --log LOG --ready FILE --stop-file FILE …
//       a host of the partition tests: delivers with slow handlers and times the store's answers (ProbeHold.swift)
// Instead of --db PATH, `--postgres URL [--host ID]` uses a PostgreSQL store (see ProbeStore.swift).
// Kill points: postBeforeCommit, afterClaim, insideHandler, beforeCompletion.
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

struct ProbeArguments {
    var values: [String: String] = [:]
    var command = ""

    init(_ arguments: [String]) throws {
        guard let first = arguments.first else {
            throw ProbeError("usage: handlerkit-signals-probe register|post|consume|wait …")
        }
        command = first
        var index = 1
        while index < arguments.count {
            let name = arguments[index]
            guard name.hasPrefix("--") else { throw ProbeError("unexpected argument \(name)") }
            if name == "--stop" {
                values["stop"] = "1"
                index += 1
                continue
            }
            guard index + 1 < arguments.count else { throw ProbeError("\(name) needs a value") }
            values[String(name.dropFirst(2))] = arguments[index + 1]
            index += 2
        }
    }

    func string(_ name: String, default value: String? = nil) throws -> String {
        guard let found = values[name] ?? value else { throw ProbeError("--\(name) is required") }
        return found
    }

    func int(_ name: String, default value: Int? = nil) throws -> Int {
        guard let text = values[name] else {
            guard let value else { throw ProbeError("--\(name) is required") }
            return value
        }
        guard let number = Int(text) else { throw ProbeError("--\(name) expects a number, found \(text)") }
        return number
    }
}

struct ProbeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func run() async throws {
    let arguments = try ProbeArguments(Array(CommandLine.arguments.dropFirst()))
    try HandlerRegistry.shared.register(.handlerkit_signals_probe)
    if let point = arguments.values["kill-at"] {
        guard let parsed = ProbeFaults.Point(rawValue: point) else { throw ProbeError("unknown kill point \(point)") }
        ProbeFaults.configure(point: parsed, after: try arguments.int("kill-after", default: 1))
    }
    if let point = arguments.values["stop-at"] {
        guard let parsed = ProbeFaults.Point(rawValue: point) else { throw ProbeError("unknown stop point \(point)") }
        ProbeFaults.configureStop(at: parsed, ready: try arguments.string("ready"))
    }
    let store = try openProbeStore(arguments)
    ProbeContext.store = store
    // Released when the command ends, so that the store closes its database as the process exits.
    defer { ProbeContext.store = nil }
    let component = try arguments.string("component", default: "probe")
    let prefix = try arguments.string("prefix", default: "s")
    let retry = RetryPolicy(
        maximumAttempts: try arguments.int("max-attempts", default: 1_000), firstDelay: .milliseconds(1),
        maximumDelay: .milliseconds(20))

    if try await PromiseProbe.run(arguments, store: store) { return }
    switch arguments.command {
    case "register":
        let center = try await SignalCenter.start(
            component: component, store: store, options: .init(retry: retry, deliversAutomatically: false))
        let log = try arguments.string("log")
        let mode = try arguments.string("mode", default: "once") == "every" ? DeliveryMode.everyRevision : .once
        let lifetime = try arguments.string("lifetime", default: "durable") == "run" ? ConsumerLifetime.run : .durable
        let flaky = try arguments.int("flaky", default: -1)
        let poison = try arguments.string("handler", default: "record") == "poison"
        for index in 0..<(try arguments.int("signals")) {
            let handler =
                poison
                ? try Probe.poisonHandler(log: log)
                : flaky >= 0
                    ? try Probe.flakyHandler(log: log, failures: flaky)
                    : try Probe.recordHandler(log: log)
            let consumer = try await center.register(
                handler, for: SignalID("\(prefix)\(index)"), lifetime: lifetime, delivery: mode)
            say("consumer \(consumer) \(prefix)\(index) \(mode == .once ? "once" : "every")")
        }
        if arguments.values["stop"] != nil { try await center.stop() }
    case "post":
        let center = try await SignalCenter.start(
            component: component, store: store, options: .init(deliversAutomatically: false))
        for index in (try arguments.int("from", default: 0))..<(try arguments.int("signals")) {
            let result = try await center.post(SignalID("\(prefix)\(index)"), payload: ["item": index])
            say("posted \(prefix)\(index) \(result.revision) \(result.deliveries)")
        }
        try await center.stop()
    case "consume":
        var options = SignalCenter.Options(
            retry: retry, deliversAutomatically: false, onProblem: { say("problem \($0)") })
        options.faultHook = ProbeFaults.hook
        let center = try await SignalCenter.start(component: component, store: store, options: options)
        let takeover = center.takeover
        say(
            "run \(center.runID) took over \(takeover.deadRuns.count) runs, \(takeover.interruptedDeliveries) interrupted, "
                + "\(takeover.adoptedConsumers) consumers adopted, \(takeover.removedConsumers) run-tied consumers removed, "
                + "\(takeover.endedRuns.count) ended runs"
        )
        var completed = 0
        while true {
            completed += try await center.deliverDue()
            if try await center.openDeliveries() == 0 { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        say("idle \(completed)")
        if arguments.values["stop"] != nil { try await center.stop() }
    case "open":
        let statistics = try await store.statistics()
        say("open \(statistics.pendingDeliveries + statistics.claimedDeliveries)")
    case "check":
        func lines(_ name: String) throws -> [Substring] {
            try String(contentsOfFile: try arguments.string(name), encoding: .utf8).split(separator: "\n")
        }
        let passed = try await ProbeCheck.run(
            store: store, log: try arguments.string("log"),
            consumerLines: try lines("consumers"), postLines: try lines("posts"))
        if !passed { throw ProbeError("check failed") }
    case "serve":
        let center = try await SignalCenter.start(component: component, store: store, options: .init(retry: retry))
        let log = try arguments.string("log")
        for index in 0..<(try arguments.int("signals")) {
            _ = try await center.register(try Probe.recordHandler(log: log), for: SignalID("\(prefix)\(index)"))
        }
        _ = FileManager.default.createFile(atPath: try arguments.string("ready"), contents: Data(center.runID.utf8))
        // The deliveries run in the center's own task, woken by other processes' posts; this only
        // notices when they are all done, so the process can exit.
        while try await !center.consumers().filter({ $0.runID == center.runID }).isEmpty {
            try await Task.sleep(for: .milliseconds(5))
        }
        say("served")
        try await center.stop()
    default:
        if try await SuspendProbe.run(arguments, store: store) { break }
        if try await ServiceProbe.run(arguments, store: store) { break }
        if try await TakeoverProbe.run(arguments, store: store) { break }
        guard try await PartitionProbe.run(arguments) else { throw ProbeError("unknown command \(arguments.command)") }
    }
}

do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("handlerkit-signals-probe: \(error)\n".utf8))
    exit(1)
}
