import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// An ordering key whose first delivery cannot run now — it is dead, or waiting for its retry — so
/// every later delivery of the key waits behind it (``SignalStoreInspector/blockedOrderingKeys(component:)``).
public struct BlockedOrderingKey: Sendable, Hashable {
    /// The key, as posted.
    public var orderingKey: String
    /// The key's first delivery, which holds the others back: dead until an operator requeues it
    /// (it runs again, first) or discards it (the next one runs), or waiting for its retry's due time.
    public var head: DeliveryRecord
    /// How many deliveries of the key wait behind it.
    public var waiting: Int

    public init(orderingKey: String, head: DeliveryRecord, waiting: Int) {
        self.orderingKey = orderingKey
        self.head = head
        self.waiting = waiting
    }

    /// Whether it stays blocked until an operator acts (its head is dead).
    public var needsOperator: Bool { head.state == .dead }
}

extension SignalStoreInspector {
    /// The ordering keys blocked by their first delivery — dead, or waiting for a retry — with how
    /// many deliveries wait behind each; those of `component` only when given. Dead heads first, then
    /// oldest first. A key whose first delivery runs now is not blocked, and not listed.
    ///
    /// Only deliveries that failed are read, and then one count per blocked key: a store with many
    /// keys that all run costs one read.
    public func blockedOrderingKeys(component: String? = nil) async throws(SignalError) -> [BlockedOrderingKey] {
        let failed = try await store.deliveries(
            matching: DeliveryFilter(states: [.dead, .retrying], component: component))
        var blocked: [BlockedOrderingKey] = []
        for head in failed {
            // Only the first delivery of a key is ever claimed, so one that failed is its key's first.
            guard let key = head.orderingKey else { continue }
            let count = try await store.read(InspectionReads.deliveries(of: head.consumerID, orderingKey: key))
            blocked.append(BlockedOrderingKey(orderingKey: key, head: head, waiting: max(0, count - 1)))
        }
        return blocked.sorted {
            ($0.needsOperator ? 0 : 1, $0.head.madeAt) < ($1.needsOperator ? 0 : 1, $1.head.madeAt)
        }
    }
}
