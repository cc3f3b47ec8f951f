import HandlerKit

/// The values of a process that its center gives every handler it runs, as call-time arguments by
/// parameter name: what a post cannot carry — a database, an HTTP client, a cache — declared by a
/// static `@handler` as parameters rather than looked up in a global.
///
/// ```swift
/// var options = SignalCenter.Options()
/// options.context.provide(database, as: "database")
/// let center = try await SignalCenter.start(component: "worker", store: store, options: options)
///
/// enum Thumbnails {
///     @handler static func render(photoID: String, database: AppDatabase) async throws { … }
/// }
/// ```
///
/// A handler receives a value under its parameter's name when the value's type is the parameter's.
/// Besides these, a center gives every handler `deliveryKey` (`String`), `signalID` (`String`),
/// `signalRevision` (`Int`) and `signalCenter` (the ``SignalCenter`` that runs it); those names are the
/// center's, and a value provided under one of them is not used.
///
/// When a handler has a parameter that no post can carry (its type is not `Codable`) and the
/// process's center provides no value for it, the center does not call it: it reports
/// `SignalError.invalidHandler` naming the handler and the value (`Options.onProblem`) and gives the
/// delivery back to be retried, in this process or another that provides the value, like an attempt
/// that failed.
public struct HandlerContext: Sendable {
    private var values: [String: any Sendable] = [:]

    /// A context that provides nothing.
    public init() {}

    /// Gives `value` to the parameter named `name` of every handler the center runs (replacing what
    /// was provided under that name).
    public mutating func provide<Value: Sendable>(_ value: Value, as name: String) {
        values[name] = value
    }

    /// The names a center gives every handler itself.
    static let centerNames: Set<String> = ["deliveryKey", "signalID", "signalRevision", "signalCenter"]

    /// The call-time arguments of a delivery: the provided values, then the center's own.
    func arguments(delivery: ClaimedDelivery, center: SignalCenter) -> CallArguments {
        var arguments = CallArguments(values)
        arguments.set("deliveryKey", delivery.key.rawValue)
        arguments.set("signalID", delivery.signalID)
        arguments.set("signalRevision", delivery.revision)
        arguments.set("signalCenter", center)
        return arguments
    }

    /// The first mandatory parameter of `handler` (in `registry`) that only a call can give (its type
    /// is not `Codable`) and that neither this context nor the center gives; `nil` when there is none.
    func missingValue(of handler: Handler, in registry: HandlerRegistry) -> HandlerParameter? {
        registry.descriptor(for: handler.id)?.parameters.first { parameter in
            parameter.isMandatory && !parameter.isBindable && values[parameter.name] == nil
                && !Self.centerNames.contains(parameter.name)
        }
    }
}
