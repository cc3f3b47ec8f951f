@_spi(SignalStoreDriver) import HandlerKitSignals

/// The SQL of a debounced post's delivery (`StoreStep.debounceDelivery(_:now:)`), once for every SQL store.
enum DebounceStatements {
    /// Which delivery of consumer $1 a post with debounce key $2 collapses into: the one with that
    /// key that waits for its first attempt (pending, never claimed).
    static let waiting = """
        consumer_id = $1 AND debounce_key = $2 AND state = \(DeliveryState.pending.sqlLiteral) AND attempt = 0
        """

    /// The statements of `delivery` made at `now`. The first moves the waiting delivery's due time (and
    /// locks its row against claims on PostgreSQL until the commit), the second gives it the post's
    /// payload; when there is none, the last two make the delivery with its key, as a post makes one.
    static func statements(_ delivery: NewDelivery, now: Double) -> [SQLStatement] {
        guard let debounce = delivery.debounce else { return [] }
        let key = DeliveryKey(consumer: delivery.consumer, revision: delivery.revision).rawValue
        let consumer = SQLValue(delivery.consumer)
        let debounceKey = SQLValue(debounce.key)
        return [
            SQLStatement(
                """
                UPDATE deliveries SET not_before = CASE
                    WHEN CAST($4 AS DOUBLE PRECISION) IS NOT NULL AND created_at + $4 < $3 THEN created_at + $4 ELSE $3 END
                WHERE \(waiting)
                """, [consumer, debounceKey, .init(delivery.due), .init(debounce.maximumDelay)]),
            SQLStatement(
                """
                UPDATE delivery_bodies SET payload = $3
                WHERE delivery_id IN (SELECT id FROM deliveries WHERE \(waiting))
                """, [consumer, debounceKey, .init(delivery.payload)], answer: .nothing),
            SQLStatement(
                """
                INSERT INTO deliveries (delivery_key, consumer_id, signal_id, revision, component, owner_run, lifetime,
                                        handler_id, state, attempt, not_before, created_at, order_key, debounce_key)
                SELECT $3, consumer_id, signal_id, $4, component, run_id, lifetime, handler_id,
                       \(DeliveryState.pending.sqlLiteral), 0, $5, $6, $7, $2
                FROM consumers WHERE consumer_id = $1 AND NOT EXISTS (SELECT 1 FROM deliveries WHERE \(waiting))
                """,
                [
                    consumer, debounceKey, .init(key), .init(delivery.revision), .init(delivery.due), .init(now),
                    .init(delivery.orderKey),
                ]),
            SQLStatement(
                """
                INSERT INTO delivery_bodies (delivery_id, handler, payload)
                SELECT deliveries.id, consumers.handler, $3
                FROM deliveries JOIN consumers ON consumers.consumer_id = deliveries.consumer_id
                WHERE deliveries.delivery_key = $1 AND consumers.consumer_id = $2
                """, [.init(key), consumer, .init(delivery.payload)], answer: .nothing),
        ]
    }
}
