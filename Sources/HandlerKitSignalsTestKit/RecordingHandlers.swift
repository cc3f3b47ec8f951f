@_spi(HandlerKitGenerated) import HandlerKit

/// One run of a consumer's handler, as the recording handlers record it.
package struct Received: Sendable, Hashable {
    package var handler: String
    package var item: Int?
    package var note: String?
    package var deliveryKey: String
    package var revision: Int

    package init(handler: String, item: Int? = nil, note: String? = nil, deliveryKey: String, revision: Int) {
        self.handler = handler
        self.item = item
        self.note = note
        self.deliveryKey = deliveryKey
        self.revision = revision
    }
}

/// What the recording handlers did, in order. Thread-safe.
package final class Recorder: Sendable {
    package init() {}

    private let received = Locked<[Received]>([])

    package func add(_ value: Received) {
        received.withLock { $0.append(value) }
    }

    package var all: [Received] { received.withLock { $0 } }

    private let released = Locked(false)

    /// Lets every `Sink.held` handler return, those waiting and those to come.
    package func releaseHeldHandlers() {
        released.withLock { $0 = true }
    }

    /// Returns once ``releaseHeldHandlers()`` was called.
    func waitUntilReleased() async throws {
        while !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
    }
}

package struct HandlerFailure: Error, CustomStringConvertible {
    package init() {}

    package var description: String { "the test handler fails on purpose" }
}

/// A registry with the handlers of the checks (and of this package's signal tests), which record into `recorder`:
/// - `Sink.receive(item: Int, note: String?, deliveryKey: String, signalRevision: Int)`
/// - `Sink.fail(deliveryKey: String)` always throws
/// - `Sink.async(item: Int, deliveryKey: String)` is `async`
/// - `Sink.slow(item: Int, deliveryKey: String)` records its start (note `started`), sleeps `item`
///   milliseconds, then records its end (note `finished`)
/// - `Sink.held(deliveryKey: String)` records its start (note `started`), waits until the recorder
///   releases it (`Recorder.releaseHeldHandlers()`), then records its end (note `finished`)
package func makeRegistry(_ recorder: Recorder) throws -> HandlerRegistry {
    let registry = HandlerRegistry()
    try registry.register(
        HandlerTable(
            module: "SignalConformance",
            handlers: [
                HandlerDescriptor(
                    id: "Sink.receive",
                    parameters: [
                        .required("item", Int.self), .optional("note", String.self),
                        .required("deliveryKey", String.self), .required("signalRevision", Int.self),
                    ],
                    invoke: { arguments in
                        let item: Int = try arguments.required("item")
                        recorder.add(
                            Received(
                                handler: "Sink.receive", item: item,
                                note: try arguments.optional("note"),
                                deliveryKey: try arguments.required("deliveryKey"),
                                revision: try arguments.required("signalRevision")))
                    }
                ),
                HandlerDescriptor(
                    id: "Sink.fail", parameters: [.required("deliveryKey", String.self)],
                    invoke: { arguments in
                        recorder.add(
                            Received(
                                handler: "Sink.fail", deliveryKey: try arguments.required("deliveryKey"), revision: 0))
                        throw HandlerFailure()
                    }),
                HandlerDescriptor(
                    id: "Sink.async", parameters: [.required("item", Int.self), .required("deliveryKey", String.self)],
                    invokeAsync: { arguments in
                        try await Task.sleep(for: .milliseconds(1))
                        let item: Int = try arguments.required("item")
                        recorder.add(
                            Received(
                                handler: "Sink.async", item: item,
                                deliveryKey: try arguments.required("deliveryKey"), revision: 0))
                    }
                ),
                HandlerDescriptor(
                    id: "Sink.slow", parameters: [.required("item", Int.self), .required("deliveryKey", String.self)],
                    invokeAsync: { arguments in
                        let item: Int = try arguments.required("item")
                        let key: String = try arguments.required("deliveryKey")
                        recorder.add(
                            Received(handler: "Sink.slow", item: item, note: "started", deliveryKey: key, revision: 0))
                        try await Task.sleep(for: .milliseconds(item))
                        recorder.add(
                            Received(handler: "Sink.slow", item: item, note: "finished", deliveryKey: key, revision: 0))
                    }
                ),
                HandlerDescriptor(
                    id: "Sink.held", parameters: [.required("deliveryKey", String.self)],
                    invokeAsync: { arguments in
                        let key: String = try arguments.required("deliveryKey")
                        recorder.add(
                            Received(handler: "Sink.held", item: 0, note: "started", deliveryKey: key, revision: 0))
                        try await recorder.waitUntilReleased()
                        recorder.add(
                            Received(handler: "Sink.held", item: 0, note: "finished", deliveryKey: key, revision: 0))
                    }
                ),
            ]))
    return registry
}
