#if os(macOS) || os(Linux)
import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the probe kills itself with SIGKILL — the same as `kill -9` from outside at exactly that
/// point: `--kill-at POINT --kill-after N` kills at the N-th time the process reaches POINT.
/// `--stop-at POINT --ready FILE` stops it there instead (SIGSTOP, after creating FILE), until a
/// SIGCONT from outside.
enum ProbeFaults {
    enum Point: String {
        /// Inside a post's transaction, before its commit (the store calls `Opening.postBeforeCommit`).
        case postBeforeCommit
        /// After a delivery was claimed, before its handler runs (the center's fault hook).
        case afterClaim
        /// Inside the handler, after it logged its start (the probe's handler).
        case insideHandler
        /// After the handler returned, before the delivery is completed (the center's fault hook).
        case beforeCompletion
    }

    /// The point to die at, and how many more times it is reached before that.
    private static let killing = Locked<(point: Point?, remaining: Int)>((nil, 0))
    private static let stopping = Locked<(point: Point, ready: String)?>(nil)

    static func configure(point: Point, after count: Int) {
        killing.withLock { $0 = (point, count) }
    }

    static func configureStop(at point: Point, ready: String) {
        stopping.withLock { $0 = (point, ready) }
    }

    static func reached(_ reached: Point) {
        let dies = killing.withLock { state -> Bool in
            guard reached == state.point else { return false }
            state.remaining -= 1
            return state.remaining <= 0
        }
        if dies { kill(getpid(), SIGKILL) }
        let ready = stopping.withLock { stop -> String? in
            guard let found = stop, found.point == reached else { return nil }
            stop = nil
            return found.ready
        }
        if let ready {
            _ = FileManager.default.createFile(atPath: ready, contents: nil)
            // `raise` stops this thread before it returns; `kill(getpid(), …)` would be taken by
            // another thread, and this one would run on until that thread is scheduled.
            raise(SIGSTOP)
        }
    }

    /// The center's fault hook.
    static let centerHook: @Sendable (SignalFaultPoint) -> Void = { point in
        switch point {
        case .postBeforeCommit: reached(.postBeforeCommit)
        case .afterClaim: reached(.afterClaim)
        case .beforeCompletion: reached(.beforeCompletion)
        }
    }
}

/// The probe's handlers, registered without the build plugin (as `makeRegistry` registers the
/// conformance handlers). Each writes one line to its log file when it starts and one when it
/// returns, so the checks can tell every run of a handler and whether it returned:
/// - `SignalStoreProbe.record(log: String, item: Int, deliveryKey: String)`: `late <key> <item> <pid>`
///   when the store already holds a completion of the delivery, then `start <key> <item> <pid>`, the
///   kill point `insideHandler`, and `end <key> <item> <pid>`
/// - `SignalStoreProbe.poison(log: String, deliveryKey: String)`: `start <key> 0 <pid>`, then kills
///   its own process with SIGKILL, on every attempt
enum ProbeHandlers {
    static let module = "HandlerKitSignalsTestKit.SignalStoreProbe"

    /// The store the probe opened, for the handlers (which look up completions in it).
    static let store = Locked<(any SignalStore)?>(nil)

    static func register(in registry: HandlerRegistry) throws {
        try registry.register(
            HandlerTable(
                module: module,
                handlers: [
                    HandlerDescriptor(
                        id: "SignalStoreProbe.record",
                        parameters: [
                            .required("log", String.self), .required("item", Int.self),
                            .required("deliveryKey", String.self), .optional("due", Double.self),
                        ],
                        invokeAsync: { arguments in
                            let log: String = try arguments.required("log")
                            let item: Int = try arguments.required("item")
                            let key: String = try arguments.required("deliveryKey")
                            // A delayed post's time (seconds since 1970): a start before it is early.
                            if let due: Double = try arguments.optional("due"), Date().timeIntervalSince1970 < due {
                                ProbeLog.append(log, "early \(key) \(item) \(getpid())")
                            }
                            if let store = store.withLock({ $0 }),
                                let completions = try? await store.completions(of: DeliveryKey(key)),
                                !completions.isEmpty
                            {
                                ProbeLog.append(log, "late \(key) \(item) \(getpid())")
                            }
                            ProbeLog.append(log, "start \(key) \(item) \(getpid())")
                            ProbeFaults.reached(.insideHandler)
                            ProbeLog.append(log, "end \(key) \(item) \(getpid())")
                        }),
                    HandlerDescriptor(
                        id: "SignalStoreProbe.poison",
                        parameters: [.required("log", String.self), .required("deliveryKey", String.self)],
                        invoke: { arguments in
                            let key: String = try arguments.required("deliveryKey")
                            ProbeLog.append(try arguments.required("log"), "start \(key) 0 \(getpid())")
                            kill(getpid(), SIGKILL)
                        }),
                ]))
    }

    static func record(log: String) throws -> Handler {
        try Handler(id: "SignalStoreProbe.record", bound: ["log": log])
    }

    static func poison(log: String) throws -> Handler {
        try Handler(id: "SignalStoreProbe.poison", bound: ["log": log])
    }
}

/// Appending lines to a log file that several processes share (`O_APPEND`: each line lands whole).
package enum ProbeLog {
    package static func append(_ path: String, _ line: String) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    package static func lines(_ path: String) -> [Substring] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n")
    }
}
#endif
