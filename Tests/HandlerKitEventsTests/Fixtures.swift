import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
import HandlerKitEvents

/// Records what subscribers did, from any thread, in the order they did it.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []

    func record(_ entry: String) {
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }
}

/// A class with class-level events (its sender is the type).
final class Player: Sendable {}

/// An object with instance-level events.
final class Download: EventSource {
    let eventStorage = EventStorage()
    let identity: String?

    init(identity: String? = nil) { self.identity = identity }

    var eventIdentity: String? { identity }
    var progress: Event<Download, Double> { event("progress") }
    var finished: Event<Download, Void> { event("finished") }
}

struct Failure: Error, Equatable {
    let code: Int
}

/// Handlers written as the generator writes them, each recording what it received.
func makeRegistry(_ recorder: Recorder) throws -> HandlerRegistry {
    let registry = HandlerRegistry()
    try registry.register(
        HandlerTable(
            module: "EventFixtures",
            handlers: [
                // A bound label, the event's data and, optionally, its name.
                HandlerDescriptor(
                    id: "Log.record",
                    parameters: [
                        .required("label", String.self), .required("data", String.self),
                        .optional("eventName", String.self),
                    ],
                    invoke: { arguments in
                        let label: String = try arguments.required("label")
                        let data: String = try arguments.required("data")
                        let name: String? = try arguments.optional("eventName")
                        recorder.record("\(label):\(data)\(name.map { "@\($0)" } ?? "")")
                    }
                ),
                // The whole event object and its sender.
                HandlerDescriptor(
                    id: "Log.inspect",
                    parameters: [
                        .required("event", SentEvent<Player.Type, String>.self), .required("sender", Player.Type.self),
                    ],
                    invoke: { arguments in
                        let event: SentEvent<Player.Type, String> = try arguments.required("event")
                        let sender: Player.Type = try arguments.required("sender")
                        recorder.record("inspect:\(event.eventName):\(event.data):\(sender == event.sender)")
                    }
                ),
                // An Int payload.
                HandlerDescriptor(
                    id: "Log.count",
                    parameters: [.required("data", Int.self)],
                    invoke: { arguments in
                        let data: Int = try arguments.required("data")
                        recorder.record("count:\(data)")
                    }
                ),
                // An optional payload parameter and a value the event does not supply.
                HandlerDescriptor(
                    id: "Log.account",
                    parameters: [.required("account", String.self), .optional("data", Int.self)],
                    invoke: { arguments in
                        let account: String = try arguments.required("account")
                        let data: Int? = try arguments.optional("data")
                        recorder.record("account:\(account):\(data.map(String.init) ?? "nil")")
                    }
                ),
                // Any payload at all.
                HandlerDescriptor(
                    id: "Log.any",
                    parameters: [.required("data", Any.self)],
                    invoke: { arguments in
                        let data: Any = try arguments.required("data")
                        recorder.record("any:\(data)")
                    }
                ),
                // A bound value of any shape (e.g. nested as deep as a handler document allows).
                HandlerDescriptor(
                    id: "Log.shape",
                    parameters: [.required("shape", HandlerValue.self), .required("data", String.self)],
                    invoke: { arguments in
                        let _: HandlerValue = try arguments.required("shape")
                        let data: String = try arguments.required("data")
                        recorder.record("shape:\(data)")
                    }
                ),
                // An async handler.
                HandlerDescriptor(
                    id: "Log.slow",
                    parameters: [.required("label", String.self), .required("data", String.self)],
                    invokeAsync: { arguments in
                        let label: String = try arguments.required("label")
                        let data: String = try arguments.required("data")
                        await Task.yield()
                        recorder.record("slow \(label):\(data)")
                    }
                ),
                // A handler that throws.
                HandlerDescriptor(
                    id: "Log.fail",
                    parameters: [.required("code", Int.self)],
                    invoke: { arguments in throw Failure(code: try arguments.required("code")) }
                ),
            ]))
    return registry
}

/// A class-level event of `Player` with a unique key, so tests running at once never share one.
func makeEvent(_ name: String = "started", key: String = UUID().uuidString) -> Event<Player.Type, String> {
    Event<Player.Type, String>(name, key: key)
}
