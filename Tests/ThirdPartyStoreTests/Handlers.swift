import Foundation
@_spi(HandlerKitGenerated) import HandlerKit

/// The delivery keys a handler received, in order.
final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [String] = []

    func add(_ key: String) {
        lock.lock()
        defer { lock.unlock() }
        keys.append(key)
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return keys
    }
}

/// A registry with one handler, `Greeting.received(deliveryKey:)`, that records into `received`:
/// what the `@handler` macro and the build plugin generate for an app, written out by hand.
func makeRegistry(recordingInto received: Received) throws -> HandlerRegistry {
    let registry = HandlerRegistry()
    try registry.register(
        HandlerTable(
            module: "ThirdPartyStoreTests",
            handlers: [
                HandlerDescriptor(
                    id: "Greeting.received", parameters: [.required("deliveryKey", String.self)],
                    invoke: { arguments in received.add(try arguments.required("deliveryKey")) })
            ]))
    return registry
}
