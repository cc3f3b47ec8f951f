/// The id of a `@handler` function, as a value the compiler checks.
///
/// The generator declares one per handler next to its reference, `<name>HandlerID`
/// (`Session.endedHandlerID`), and the generated references take one as their invalidation target,
/// so a misspelt target does not compile:
///
/// ```swift
/// let handler = try Carbons.enabledHandler(account: account, invalidation: Session.endedHandlerID)
/// ```
///
/// For an id known only at run time, make one from its string: `HandlerID(storedID)`; whether it is
/// registered is then checked when the handler is created (`HandlerError.unknownHandler`).
public struct HandlerID: Sendable, Hashable, CustomStringConvertible {
    /// The handler id, e.g. `Session.ended` or an explicit `@handler(id:)`.
    public let id: String

    /// The id `id`, checked against the registry only when a handler is created with it.
    public init(_ id: String) {
        self.id = id
    }

    public var description: String { id }
}
