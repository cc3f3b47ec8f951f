import Foundation
import HandlerKit

extension SignalCenter {
    /// The consumer's handler rebuilt from its document, with the payload's values that its
    /// parameters take.
    func prepare(_ delivery: ClaimedDelivery) throws(SignalError) -> (Handler, PostContext) {
        try Self.prepare(delivery, registry: registry)
    }

    /// Throws the error a delivery gets when its handler cannot be rebuilt under `registry` or its
    /// payload does not fit it (`SignalStoreInspector.checkStoredHandlers(registry:)`).
    package static func checkHandler(of delivery: ClaimedDelivery, registry: HandlerRegistry) throws(SignalError) {
        _ = try prepare(delivery, registry: registry)
    }

    /// A delivery's handler rebuilt from its document under `registry`, with the payload's values
    /// that its parameters take, and the post's context the payload carries; the errors a delivery gets.
    static func prepare(
        _ delivery: ClaimedDelivery, registry: HandlerRegistry
    ) throws(SignalError) -> (Handler, PostContext) {
        let handler = try rebuild(delivery.handler, table: "deliveries", key: delivery.key.rawValue, registry: registry)
        let payload: HandlerValue
        do {
            payload = try HandlerValue(json: Data(delivery.payload))
        } catch {
            throw .malformedRecord(
                table: "deliveries", key: delivery.key.rawValue, column: "payload", reason: "\(error)")
        }
        guard case .object(let members) = payload else {
            throw .malformedRecord(
                table: "deliveries", key: delivery.key.rawValue, column: "payload",
                reason: "expected a JSON object, found \(payload.kindDescription)")
        }
        let parameters = Set(registry.descriptor(for: handler.id)?.parameters.map(\.name) ?? [])
        var bindings = HandlerBindings()
        for name in members.keys.sorted() where parameters.contains(name) {
            if let value = members[name], value != .null { bindings.bind(name, value) }
        }
        do {
            try handler.bind(bindings)
        } catch {
            throw .invalidPayload(
                signal: delivery.signalID, argument: Self.argument(of: error) ?? "?",
                reason: "revision \(delivery.revision) does not fit the consumer's handler: \(error)")
        }
        return (handler, PostContext(members: members))
    }

    /// A consumer's handler rebuilt from its `document` (stored in `table` under `key`) under `registry`.
    package static func rebuild(
        _ document: [UInt8], table: String, key: String, registry: HandlerRegistry
    ) throws(SignalError) -> Handler {
        do {
            return try Handler(json: document, registry: registry)
        } catch HandlerError.unknownHandler(let id, _), HandlerError.noHandlersRegistered(let id, _) {
            throw .handlerNotRegistered(handler: id, delivery: key)
        } catch {
            throw .malformedRecord(
                table: table, key: key, column: "handler",
                reason: "the consumer's handler cannot be rebuilt in this process: \(error)")
        }
    }

    /// Whether `error` says the handler's arguments did not fit (a missing or mistyped argument):
    /// the same delivery would fail again.
    static func isArgumentError(_ error: any Error, of handler: Handler) -> Bool {
        switch error as? HandlerError {
        case .missingArgument(let id, _, _)?, .typeMismatch(let id, _, _, _, _)?, .notBindable(let id, _, _)?:
            id == handler.id
        default: false
        }
    }

    private static func argument(of error: HandlerError) -> String? {
        switch error {
        case .typeMismatch(_, let argument, _, _, _), .notBindable(_, let argument, _),
            .unknownArgument(_, let argument, _),
            .missingArgument(_, let argument, _), .encodingFailed(_, let argument, _):
            argument
        default: nil
        }
    }
}
