import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

/// What the handlers of one store's world were called with, in order, and how often each delivery
/// key was called (a handler fails its first `failures` calls for a key).
final class DifferentialRecorder: Sendable {
    private struct State {
        var lines: [String] = []
        var calls: [String: Int] = [:]
    }

    private let state = Locked(State())

    /// Counts a call for `key`; returns its number (1 for the first).
    func call(_ key: String) -> Int {
        state.withLock { state in
            state.calls[key, default: 0] += 1
            return state.calls[key] ?? 0
        }
    }

    func add(_ line: String) {
        state.withLock { $0.lines.append(line) }
    }

    /// The lines added since the last call.
    func take() -> [String] {
        state.withLock { state in
            defer { state.lines = [] }
            return state.lines
        }
    }
}

struct DifferentialHandlerFailure: Error, CustomStringConvertible {
    var call: Int
    var description: String { "the differential handler fails on purpose (call \(call))" }
}

enum DifferentialHandlers {
    static let consume = "Differential.consume"
    static let fallback = "Differential.fallback"

    /// A registry with the two handlers of the differential test, recording into `recorder`:
    /// - `Differential.consume(tag: String, failures: Int, item: Int, deliveryKey: String, signalRevision: Int)`
    ///   throws on its first `failures` calls for a delivery key;
    /// - `Differential.fallback(tag: String, promiseID: String, outcome: String, value: Int?,
    ///   rejection: PromiseRejection?)`, a promise's fallback, never throws.
    static func registry(_ recorder: DifferentialRecorder) throws -> HandlerRegistry {
        let registry = HandlerRegistry()
        try registry.register(
            HandlerTable(
                module: "Differential",
                handlers: [
                    HandlerDescriptor(
                        id: consume,
                        parameters: [
                            .required("tag", String.self), .required("failures", Int.self),
                            .required("item", Int.self), .required("deliveryKey", String.self),
                            .required("signalRevision", Int.self),
                        ],
                        invoke: { arguments in
                            let tag: String = try arguments.required("tag")
                            let failures: Int = try arguments.required("failures")
                            let item: Int = try arguments.required("item")
                            let key: String = try arguments.required("deliveryKey")
                            let revision: Int = try arguments.required("signalRevision")
                            let call = recorder.call(key)
                            let fails = call <= failures
                            recorder.add(
                                "\(tag) got \(key) (revision \(revision), item \(item)), call \(call)\(fails ? ": throws" : "")"
                            )
                            if fails { throw DifferentialHandlerFailure(call: call) }
                        }),
                    HandlerDescriptor(
                        id: fallback,
                        parameters: [
                            .required("tag", String.self), .required("promiseID", String.self),
                            .required("outcome", String.self), .optional("value", Int.self),
                            .optional("rejection", PromiseRejection.self),
                        ],
                        invoke: { arguments in
                            let tag: String = try arguments.required("tag")
                            let promise: String = try arguments.required("promiseID")
                            let outcome: String = try arguments.required("outcome")
                            let value: Int? = try arguments.optional("value")
                            let rejection: PromiseRejection? = try arguments.optional("rejection")
                            recorder.add(
                                "fallback \(tag) of \(promise): \(outcome)"
                                    + (value.map { " value \($0)" } ?? "") + (rejection.map { " \($0.code)" } ?? ""))
                        }),
                ]))
        return registry
    }
}
