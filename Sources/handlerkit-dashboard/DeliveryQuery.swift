#if SignalsDashboard
import Foundation
import HandlerKitSignals
import HandlerKitSignalsInspection
import SignalStoreOpening

/// The filters of the deliveries pages, from the query string: `state` (may repeat), `component`,
/// `signal`, `handler`, `consumer`, `ordering-key`, `older-than` (`90s`, `15m`, `2h`, `3d`) and `limit`.
struct DeliveryQuery: Sendable {
    /// The parameters the deliveries pages take.
    static let names: Set<String> = [
        "state", "component", "signal", "handler", "consumer", "ordering-key", "older-than", "limit",
    ]
    /// How many deliveries a page shows unless `limit` says otherwise, and at most.
    static let defaultLimit = 100
    static let maximumLimit = 1_000

    var states: Set<DeliveryFilter.State>?
    var component: String?
    var signal: String?
    var handler: String?
    var consumer: String?
    var orderingKey: String?
    var olderThan: String?
    var age: Age?
    var limit = Self.defaultLimit

    /// The filters `parameters` give; throws saying which one is not valid.
    init(_ parameters: Parameters) throws(InputError) {
        let states = try parameters.all("state").map { (text: String) throws(InputError) -> DeliveryFilter.State in
            guard let state = DeliveryFilter.State(rawValue: text) else {
                throw InputError(
                    "state '\(text)' is not one of "
                        + DeliveryFilter.State.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return state
        }
        self.states = states.isEmpty ? nil : Set(states)
        component = parameters["component"]
        signal = parameters["signal"]
        handler = parameters["handler"]
        consumer = parameters["consumer"]
        orderingKey = parameters["ordering-key"]
        if let text = parameters["older-than"] {
            guard let age = Age(text) else {
                throw InputError("older-than '\(text)' is not an age such as 90s, 15m, 2h or 3d")
            }
            olderThan = text
            self.age = age
        }
        if let text = parameters["limit"] {
            guard let limit = Int(text), (1...Self.maximumLimit).contains(limit) else {
                throw InputError("limit '\(text)' is not a whole number from 1 to \(Self.maximumLimit)")
            }
            self.limit = limit
        }
    }

    /// The store's filter for these parameters at `now`, for at most `limit` deliveries.
    func filter(now: Date, limit: Int?) -> DeliveryFilter {
        DeliveryFilter(
            states: states, component: component, signalID: signal, handlerID: handler,
            consumerID: consumer.map(ConsumerID.init), orderingKey: orderingKey,
            madeBefore: age.map { now.addingTimeInterval(-$0.seconds) },
            limit: limit)
    }

    /// The parameters again, for a link (without the states when `states` is false, and without the
    /// limit).
    func items(states includesStates: Bool = true) -> [(String, String)] {
        var items: [(String, String)] = []
        if includesStates, let states {
            items += DeliveryFilter.State.allCases.filter(states.contains).map { ("state", $0.rawValue) }
        }
        for (name, value) in [
            ("component", component), ("signal", signal), ("handler", handler), ("consumer", consumer),
            ("ordering-key", orderingKey), ("older-than", olderThan),
        ] {
            if let value { items.append((name, value)) }
        }
        return items
    }

    /// A delivery key: a consumer id, a slash and a revision (`CONSUMER/REVISION`).
    static func key(_ text: String) throws(InputError) -> DeliveryKey {
        guard let slash = text.lastIndex(of: "/"), slash != text.startIndex,
            let revision = Int(text[text.index(after: slash)...]), revision >= 0
        else {
            throw InputError("key '\(text)' is not a delivery key (CONSUMER/REVISION, e.g. 4F2C…/3)")
        }
        return DeliveryKey(text)
    }
}
#endif
