import Foundation

/// Reading the values the stores keep as text, with the same errors in every store.
extension RawRepresentable where RawValue == String {
    /// The value stored as `text` in column `column` of the row of `table` with key `key`.
    fileprivate init(stored text: String, table: String, key: String, column: String) throws(SignalError) {
        guard let value = Self(rawValue: text) else {
            throw .malformedRecord(table: table, key: key, column: column, reason: "unknown \(column) '\(text)'")
        }
        self = value
    }
}

extension ConsumerLifetime {
    /// The lifetime stored in the `lifetime` column of consumer `consumer`.
    package init(stored text: String, consumer: String) throws(SignalError) {
        try self.init(stored: text, table: "consumers", key: consumer, column: "lifetime")
    }
}

extension DeliveryMode {
    /// The mode stored in the `mode` column of consumer `consumer`.
    package init(stored text: String, consumer: String) throws(SignalError) {
        try self.init(stored: text, table: "consumers", key: consumer, column: "mode")
    }
}

extension PromiseOutcome {
    /// The outcome stored in the `outcome` column of promise `promise`.
    package init(stored text: String, promise: String) throws(SignalError) {
        try self.init(stored: text, table: "promises", key: promise, column: "outcome")
    }
}

extension ConsumerRecord {
    /// A consumer from the columns of its stored row, with the same errors in every store (its
    /// lifetime and mode are read as ``ConsumerLifetime`` and ``DeliveryMode`` read them).
    package init(
        stored id: String, signalID: String, component: String, runID: String, lifetime: String, mode: String,
        handler: Data, handlerID: String
    ) throws(SignalError) {
        self.init(
            id: ConsumerID(id), signalID: signalID, component: component, runID: runID,
            lifetime: try ConsumerLifetime(stored: lifetime, consumer: id),
            mode: try DeliveryMode(stored: mode, consumer: id), handler: [UInt8](handler), handlerID: handlerID)
    }
}

extension RunStatus {
    /// A run's status from the values its store read: its open deliveries and when the earliest
    /// pending one is due (seconds since 1970; `nil` when none is pending), and whether its work queue
    /// has open deliveries and when its earliest pending one is due.
    package init(stored openDeliveries: Int, nextDue: Double?, queued: Bool, queueNextDue: Double?) {
        self.init(
            openDeliveries: openDeliveries, nextDue: nextDue.map(Date.init(timeIntervalSince1970:)),
            queueHasDeliveries: queued, queueNextDue: queueNextDue.map(Date.init(timeIntervalSince1970:)))
    }
}

extension SignalStoreStatistics {
    /// A store's counts: the rows of its tables, and its deliveries counted by their stored state
    /// (`state` is the stored text, `nil` when it cannot be read). A state the core does not know
    /// counts as dead, as a delivery no run claims: every delivery is counted once.
    package init(
        runs: Int, consumers: Int, signals: Int, completions: Int,
        deliveries: [(state: String?, count: Int)]
    ) {
        self.init()
        self.runs = runs
        self.consumers = consumers
        self.signals = signals
        self.completions = completions
        for (state, count) in deliveries {
            switch state.flatMap(DeliveryState.init(rawValue:)) {
            case .pending: pendingDeliveries += count
            case .claimed: claimedDeliveries += count
            case .dead, nil: deadDeliveries += count
            }
        }
    }
}

extension SignalError {
    /// The reason a claimed delivery whose body (handler and payload) is missing is parked as dead.
    package static func missingBody(of key: String) -> SignalError {
        .malformedRecord(
            table: "delivery_bodies", key: key, column: "delivery_id", reason: "the delivery's body is missing")
    }
}

/// A delivery a store has just claimed, as its columns hold it: what a claim reads
/// (``ClaimedDelivery/reading(claimedBy:_:)``).
package struct ClaimedColumns: Sendable {
    package var rowID: Int64
    package var key: String
    package var consumer: String
    package var signalID: String
    package var revision: Int
    package var attempt: Int
    /// Whether its previous attempt was started and never settled (the `crashed` column).
    package var crashed: Bool
    /// Its body's handler and payload; `nil` when its body is missing.
    package var handler: Data?
    package var payload: Data?
    /// Its consumer's stored mode; `nil` when the consumer is gone.
    package var mode: String?

    package init(
        rowID: Int64, key: String, consumer: String, signalID: String, revision: Int, attempt: Int, crashed: Bool,
        handler: Data?, payload: Data?, mode: String?
    ) {
        self.rowID = rowID
        self.key = key
        self.consumer = consumer
        self.signalID = signalID
        self.revision = revision
        self.attempt = attempt
        self.crashed = crashed
        self.handler = handler
        self.payload = payload
        self.mode = mode
    }
}

/// What a claim does with one delivery it claimed.
package enum ClaimReading: Sendable {
    /// Its handler runs.
    case run(ClaimedDelivery)
    /// Its stored record cannot be used: the store parks it as dead with this reason (in the claim's
    /// transaction), never drops it; the other deliveries it claimed go on.
    case park(reason: String)
}

extension ClaimedDelivery {
    /// Reads a delivery `runID` has just claimed from the values its store keeps, which `read` fetches
    /// (what it throws makes the record unreadable too): the delivery to run, or the reason to park it
    /// as dead (its body is missing, its consumer's mode is unknown, a column cannot be read).
    package static func reading(claimedBy runID: String, _ read: () throws -> ClaimedColumns) -> ClaimReading {
        do {
            let stored = try read()
            guard let handler = stored.handler, let payload = stored.payload else {
                return .park(reason: SignalError.missingBody(of: stored.key).description)
            }
            let mode = try stored.mode.map { text throws(SignalError) in
                try DeliveryMode(stored: text, consumer: stored.consumer)
            }
            return .run(
                ClaimedDelivery(
                    rowID: stored.rowID, key: DeliveryKey(stored.key), consumerID: ConsumerID(stored.consumer),
                    signalID: stored.signalID, revision: stored.revision, handler: [UInt8](handler),
                    payload: [UInt8](payload), attempt: stored.attempt, runID: runID, mode: mode,
                    previousAttemptCrashed: stored.crashed))
        } catch {
            return .park(reason: "\(error)")
        }
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
