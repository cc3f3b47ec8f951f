import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The SQL of durable promises, once for both SQL stores.
package enum PromiseStatements {
    /// Records `promise` unless a promise of its id is recorded; one change when it was recorded.
    package static func insert(_ promise: PromiseRecord) -> SQLStatement {
        SQLStatement(
            """
            INSERT INTO promises (promise_id, value_type, component, limited, consumer_id, created_at, deadline,
                                  retention)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (promise_id) DO NOTHING
            """,
            [
                .init(promise.id), .init(promise.valueType), .init(promise.component), .init(promise.storedLimited),
                .init(promise.fallbackConsumer?.rawValue), .init(promise.createdAt.timeIntervalSince1970),
                .init(promise.deadline?.timeIntervalSince1970), .init(promise.retention),
            ])
    }

    /// Settles promise `id` with `settlement` when it is pending: it is kept for its retention from
    /// then on.
    package static func settle(_ id: String, with settlement: PromiseSettlementRecord) -> SQLStatement {
        SQLStatement(
            """
            UPDATE promises SET settlement_key = $1, outcome = $2, body = $3, settled_at = $4, keep_until = $4 + retention
            WHERE promise_id = $5 AND settled_at IS NULL
            """,
            [
                .init(settlement.key), .init(settlement.outcome.rawValue), .init(settlement.body),
                .init(settlement.settledAt.timeIntervalSince1970), .init(id),
            ])
    }
}
