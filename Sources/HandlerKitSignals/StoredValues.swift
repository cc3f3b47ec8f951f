/// Reading the values the stores keep as text, with the same errors in every store.
extension ConsumerLifetime {
    /// The lifetime stored in the `lifetime` column of consumer `consumer`.
    package init(stored text: String, consumer: String) throws(SignalError) {
        guard let lifetime = ConsumerLifetime(rawValue: text) else {
            throw .malformedRecord(
                table: "consumers", key: consumer, column: "lifetime", reason: "unknown lifetime '\(text)'")
        }
        self = lifetime
    }
}

extension DeliveryMode {
    /// The mode stored in the `mode` column of consumer `consumer`.
    package init(stored text: String, consumer: String) throws(SignalError) {
        guard let mode = DeliveryMode(rawValue: text) else {
            throw .malformedRecord(table: "consumers", key: consumer, column: "mode", reason: "unknown mode '\(text)'")
        }
        self = mode
    }
}

extension SignalError {
    /// The reason a claimed delivery whose body (handler and payload) is missing is parked as dead.
    package static func missingBody(of key: String) -> SignalError {
        .malformedRecord(
            table: "delivery_bodies", key: key, column: "delivery_id", reason: "the delivery's body is missing")
    }
}

/// A value the stores keep as text (`state`, `lifetime`, `mode`), which their statements also compare
/// with: its SQL string literal is made here, from the core's own raw value, never typed into a store.
package protocol StoredAsText: RawRepresentable<String> {}

extension StoredAsText {
    /// The value as an SQL string literal (`'pending'`), for the stores' statements.
    package var sqlLiteral: String { "'\(rawValue)'" }
}

extension DeliveryState: StoredAsText {}
extension ConsumerLifetime: StoredAsText {}
extension DeliveryMode: StoredAsText {}
