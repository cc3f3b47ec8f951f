// handlerkit-signals-probe: a small program the signal tests (and Scripts/signal-soak.sh) run as
// real processes, and kill at chosen points.
//
// The commands the TestKit's process checks run are the TestKit's probe (`SignalStoreProbe`, see
// Sources/HandlerKitSignalsTestKit/ProbeCommands.swift), with this probe's stores:
//   register --db PATH --component C --log LOG --signals N [--prefix S] [--mode once|every] [--lifetime durable|run]
//            [--handler record|poison] [--stop]
//   post --db PATH --component C --signals N [--prefix S] [--from I] [--kill-at P --kill-after K]
//   consume --db PATH --component C [--kill-at P --kill-after K] [--stop-at P --ready FILE] [--max-attempts N] [--stop]
//   serve --db PATH --component C --log LOG --signals N [--prefix S] --ready FILE
//   open --db PATH
//   check --db PATH --log LOG --consumers FILE --posts FILE
// Its own commands:
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
//   promise-… (ProbePromises.swift)
//   post-in-transaction --db PATH | --postgres URL --signal S --table T --row ID [--kill-before-commit]
//       posts inside a transaction of its own connection, then commits or is killed first (ProbeTransaction.swift)
//   wait-locked --db PATH --stores N --seconds S
//       posts from N stores while the database is locked, counting a task's ticks (ProbeWaitLocked.swift)
// Instead of --db PATH, `--postgres URL [--host ID] [--lease SECONDS]` uses a PostgreSQL store (see ProbeStore.swift).
// Kill points: postBeforeCommit, afterClaim, insideHandler, beforeCompletion.
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit

struct ProbeArguments: ProbeOptionValues {
    var values: [String: String] = [:]
    var command = ""

    init(_ arguments: [String]) throws {
        guard let first = arguments.first else {
            throw ProbeError("usage: handlerkit-signals-probe COMMAND --db PATH … (see main.swift)")
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
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func run() async throws {
    let commandLine = Array(CommandLine.arguments.dropFirst())
    try HandlerRegistry.shared.register(.handlerkit_signals_probe)
    let shared = try await SignalStoreProbe.run(commandLine) { opening in
        try openProbeStore(
            try ProbeArguments(["store"] + opening.arguments), postBeforeCommit: opening.postBeforeCommit)
    }
    if shared { return }
    let arguments = try ProbeArguments(commandLine)
    let store = try openProbeStore(arguments)
    ProbeContext.store = store
    // Released when the command ends, so that the store closes its database as the process exits.
    defer { ProbeContext.store = nil }

    // The processes of these commands also deliver what the shared `register` registered.
    try await SignalStoreProbe.withHandlers(store: store) {
        if try await PromiseProbe.run(arguments, store: store) { return }
        if try await SuspendProbe.run(arguments, store: store) { return }
        if try await ServiceProbe.run(arguments, store: store) { return }
        if try await TakeoverProbe.run(arguments, store: store) { return }
        if try await WaitLockedProbe.run(arguments) { return }
        if try await TransactionProbe.run(arguments, store: store) { return }
        guard try await PartitionProbe.run(arguments) else { throw ProbeError("unknown command \(arguments.command)") }
    }
}

do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("handlerkit-signals-probe: \(error)\n".utf8))
    exit(1)
}
