import HandlerKit

/// Which of the event's call-time values a handler declares, decided when it subscribes, so a
/// delivery passes only those.
@usableFromInline
struct EventArguments: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8

    @inlinable
    init(rawValue: UInt8) { self.rawValue = rawValue }

    @usableFromInline static let event = EventArguments(rawValue: 1)
    @usableFromInline static let data = EventArguments(rawValue: 2)
    @usableFromInline static let sender = EventArguments(rawValue: 4)
    @usableFromInline static let eventName = EventArguments(rawValue: 8)

    @inlinable
    func callArguments<Sender, Payload>(_ sent: SentEvent<Sender, Payload>) -> CallArguments {
        var arguments: CallArguments = [:]
        if contains(.data) { arguments.set("data", sent.data) }
        if contains(.event) { arguments.set("event", sent) }
        if contains(.sender) { arguments.set("sender", sent.sender) }
        if contains(.eventName) { arguments.set("eventName", sent.eventName) }
        return arguments
    }
}

extension Event {
    /// Checks that `handler` can take this event and says which values to pass it.
    func eventArguments(for handler: Handler, inBackground: Bool) throws(EventError) -> EventArguments {
        let descriptor = handler.descriptor
        if descriptor.isAsync && !inBackground {
            throw .requiresBackground(event: displayName, handler: handler.id)
        }
        let bound = handler.boundValues
        var passed: EventArguments = []
        for parameter in descriptor.parameters {
            if let (argument, type) = Self.supplied(parameter.name) {
                if parameter.accepts(type) == false {
                    throw .argumentTypeMismatch(
                        event: displayName, handler: handler.id, argument: parameter.name,
                        expectedType: parameter.typeName, suppliedType: String(describing: type))
                }
                passed.insert(argument)
            } else if parameter.isMandatory, (bound[parameter.name] ?? .null) == .null {
                throw .missingArgument(
                    event: displayName, handler: handler.id, argument: parameter.name,
                    expectedType: parameter.typeName)
            }
        }
        return passed
    }

    /// The value the event supplies under `name`, and its type; an event without data supplies no `data`.
    private static func supplied(_ name: String) -> (EventArguments, Any.Type)? {
        switch name {
        case "event": (.event, SentEvent<Sender, Payload>.self)
        case "data": Payload.self == Void.self ? nil : (.data, Payload.self)
        case "sender": (.sender, Sender.self)
        case "eventName": (.eventName, String.self)
        default: nil
        }
    }
}
