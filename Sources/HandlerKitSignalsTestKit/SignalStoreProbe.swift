#if os(macOS) || os(Linux)
import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The program that ``SignalStoreProcessChecks`` starts as real processes and kills with SIGKILL at
/// chosen points. A store's author builds it as a small executable of their own package, whose `main`
/// hands the probe a closure that opens their store:
///
/// ```swift
/// // Sources/my-store-probe/main.swift (an executable target that depends on
/// // HandlerKitSignalsTestKit and on the store)
/// import HandlerKitSignalsTestKit
/// import MyStore
///
/// await SignalStoreProbe.main(arguments: CommandLine.arguments) { opening in
///     try MyStore(url: opening.value(of: "--url") ?? "", schema: opening.value(of: "--schema") ?? "")
/// }
/// ```
///
/// The checks run the probe with a command (`register`, `post`, `consume`, `serve`, `open` or
/// `check`), the probe's own options, and the store arguments given to
/// ``SignalStoreProcessChecks/Check/run(probe:storeArguments:openStore:)``; the probe hands those
/// store arguments back in ``Opening/arguments``. Every process opens the same store, so the store
/// must be one that processes share (a file, a server). Available on macOS and Linux, where a test
/// can start and kill processes.
public enum SignalStoreProbe {
    /// What the probe gives the closure that opens the store.
    public struct Opening: Sendable {
        /// The arguments that select the store, as the checks were given them, in order.
        public let arguments: [String]
        /// The kill point inside a post: call it in the store's post, inside its transaction, after its
        /// writes and before its commit. When a check asks, the probe kills its own process there (as
        /// `kill -9` would at exactly that moment). A store that never calls it fails the check of
        /// killed posts, which finds no post killed.
        public let postBeforeCommit: @Sendable () -> Void

        /// The value that follows `option` (such as `"--url"`) in ``arguments``, if any.
        public func value(of option: String) -> String? {
            guard let index = arguments.firstIndex(of: option), index + 1 < arguments.count else { return nil }
            return arguments[index + 1]
        }
    }

    /// Runs the probe command that `arguments` name (`arguments[0]` is the program, as in
    /// `CommandLine.arguments`), with the store `openStore` opens, and exits: with status 0 when the
    /// command succeeded, 1 (the error on standard error) when it failed.
    public static func main(
        arguments: [String],
        openStore: (Opening) async throws -> any SignalStore
    ) async -> Never {
        do {
            let commandLine = Array(arguments.dropFirst())
            guard try await run(commandLine, openStore: openStore) else {
                throw ProbeError(
                    "unknown command \(commandLine.first ?? "(none)"): expected one of "
                        + ProbeCommands.names.joined(separator: ", "))
            }
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("signal store probe: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Runs the probe command of `arguments` (the program's name left out); `false` when it is not
    /// one of the probe's commands (this package's own probe has more).
    package static func run(
        _ arguments: [String], openStore: (Opening) async throws -> any SignalStore
    ) async throws -> Bool {
        guard let command = arguments.first, ProbeCommands.names.contains(command) else { return false }
        let options = try ProbeOptions(Array(arguments.dropFirst()))
        try options.configureFaults()
        let opening = Opening(
            arguments: options.storeArguments, postBeforeCommit: { ProbeFaults.reached(.postBeforeCommit) })
        let store = try await openStore(opening)
        try await withHandlers(store: store) { try await ProbeCommands(options: options, store: store).run(command) }
        return true
    }

    /// Runs `body` with the probe's handlers registered in `HandlerRegistry.shared` and looking up
    /// completions in `store`: a program with commands of its own runs them so, as their processes
    /// deliver what the probe's `register` registered.
    package static func withHandlers(store: any SignalStore, _ body: () async throws -> Void) async throws {
        try ProbeHandlers.register(in: .shared)
        ProbeHandlers.store.withLock { $0 = store }
        // Released when the command ends, so that the store closes as the process exits.
        defer { ProbeHandlers.store.withLock { $0 = nil } }
        try await body()
    }
}

/// The probe's options: `--name value` pairs it knows, and `--stop`; every other argument is the
/// store's, passed on in order.
struct ProbeOptions: ProbeOptionValues {
    static let names: Set<String> = [
        "component", "log", "signals", "prefix", "mode", "lifetime", "handler", "from", "kill-at", "kill-after",
        "stop-at", "ready", "max-attempts", "consumers", "posts", "delay-ms", "bulk", "revisions",
        "ordering-keys",
    ]

    var values: [String: String] = [:]
    var storeArguments: [String] = []

    init(_ arguments: [String]) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--stop" {
                values["stop"] = "1"
                index += 1
            } else if argument.hasPrefix("--"), Self.names.contains(String(argument.dropFirst(2))) {
                guard index + 1 < arguments.count else { throw ProbeError("\(argument) needs a value") }
                values[String(argument.dropFirst(2))] = arguments[index + 1]
                index += 2
            } else {
                storeArguments.append(argument)
                index += 1
            }
        }
    }

    /// `--kill-at POINT [--kill-after N]` and `--stop-at POINT --ready FILE`.
    func configureFaults() throws {
        if let point = values["kill-at"] {
            guard let parsed = ProbeFaults.Point(rawValue: point) else {
                throw ProbeError("unknown kill point \(point)")
            }
            ProbeFaults.configure(point: parsed, after: try int("kill-after", default: 1))
        }
        if let point = values["stop-at"] {
            guard let parsed = ProbeFaults.Point(rawValue: point) else {
                throw ProbeError("unknown stop point \(point)")
            }
            ProbeFaults.configureStop(at: parsed, ready: try string("ready"))
        }
    }
}

/// What a probe's command line asked that it cannot do: a missing or malformed option.
package struct ProbeError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// A probe's `--name value` options (and `--stop`), read with the messages every probe gives.
package protocol ProbeOptionValues {
    var values: [String: String] { get }
}

extension ProbeOptionValues {
    /// Whether `--stop` was given.
    package var stops: Bool { values["stop"] != nil }

    /// The value of `--name`, else `value`; an error when neither is there.
    package func string(_ name: String, default value: String? = nil) throws -> String {
        guard let found = values[name] ?? value else { throw ProbeError("--\(name) is required") }
        return found
    }

    /// The number given as `--name`, else `value`; an error when neither is there or it is no number.
    package func int(_ name: String, default value: Int? = nil) throws -> Int {
        guard let text = values[name] else {
            guard let value else { throw ProbeError("--\(name) is required") }
            return value
        }
        guard let number = Int(text) else { throw ProbeError("--\(name) expects a number, found \(text)") }
        return number
    }
}

/// A line on standard output (what the checks read).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
#endif
