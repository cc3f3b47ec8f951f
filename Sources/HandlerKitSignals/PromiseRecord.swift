import Foundation

/// Durable promises (``DurablePromise``) on every store: the core's programs and reads.
extension SignalStore {
    /// Stores `promise` (not settled) and applies `plan` (registering its fallback consumer, if any)
    /// in the same transaction (``perform(_:)``); `false`, changing nothing, when a promise with its
    /// id exists.
    @_spi(SignalStoreDriver)
    public func insertPromise(_ promise: PromiseRecord, applying plan: StorePlan) async throws(SignalError) -> Bool {
        try await perform(.insertPromise(promise, applying: plan))
    }

    /// In one transaction: settles the promise with this id with `settlement` when it is not settled
    /// yet and its value type is one of `valueTypes` (any type when `nil`), reads the promise as it
    /// then is (settled by `settlement`, by the settlement made before it, or still pending when its
    /// value type is not one of `valueTypes`), and posts what `post` returns for that record, as
    /// ``post(_:payload:keepUntil:)`` does with no `keepUntil`. Returns the record; `nil`, changing
    /// nothing and without calling `post`, when there is no such promise. An error thrown by `post`
    /// is thrown, with nothing changed (``perform(_:)``).
    @_spi(SignalStoreDriver)
    public func settlePromise(
        _ id: String, with settlement: PromiseSettlementRecord, ifValueTypeIn valueTypes: [String]?,
        thenPosting post: @escaping @Sendable (PromiseRecord) throws(SignalError) -> PromiseSettlementPost?
    ) async throws(SignalError) -> PromiseRecord? {
        let program = StoreProgram.settle(
            id, with: settlement, ifValueTypeIn: valueTypes, now: Date().timeIntervalSince1970, thenPosting: post)
        return try await perform(program).get()
    }

    /// The promise with this id; `nil` when there is none (never made, or removed after its retention).
    @_spi(SignalStoreDriver)
    public func promise(_ id: String) async throws(SignalError) -> PromiseRecord? {
        try await read(StoreReads.promise(id))
    }

    /// The promises, all of them or only the settled (`true`) or pending (`false`) ones, oldest first.
    @_spi(SignalStoreDriver)
    public func promises(settled: Bool?) async throws(SignalError) -> [PromiseRecord] {
        try await read(StoreReads.promises(settled: settled))
    }
}

/// A promise as stored.
public struct PromiseRecord: Sendable, Hashable {
    /// Its id.
    public var id: String
    /// The name of the type of its value (`String(reflecting:)`).
    public var valueType: String
    /// The component whose process made it.
    public var component: String
    /// Whether only processes of ``component`` may await it.
    public var limitedToComponent: Bool
    /// The consumer that runs its fallback handler when no process awaits it as it settles.
    public var fallbackConsumer: ConsumerID?
    /// When it was made.
    public var createdAt: Date
    /// When it times out, if it does.
    public var deadline: Date?
    /// How long it is kept once settled, in seconds (``keptUntil`` is when that ends).
    @_spi(SignalStoreDriver) public var retention: Double
    /// How it was settled; `nil` while it is pending.
    public var settlement: PromiseSettlementRecord?

    @_spi(SignalStoreDriver)
    public init(
        id: String, valueType: String, component: String, limitedToComponent: Bool, fallbackConsumer: ConsumerID?,
        createdAt: Date, deadline: Date?, retention: Double, settlement: PromiseSettlementRecord?
    ) {
        self.id = id
        self.valueType = valueType
        self.component = component
        self.limitedToComponent = limitedToComponent
        self.fallbackConsumer = fallbackConsumer
        self.createdAt = createdAt
        self.deadline = deadline
        self.retention = retention
        self.settlement = settlement
    }

    /// Whether it is settled.
    package var isSettled: Bool { settlement != nil }

    /// Until when it is kept, once settled.
    public var keptUntil: Date? { settlement.map { $0.settledAt.addingTimeInterval(retention) } }
}

/// The post of a promise's settlement to its fallback consumer, which ``SignalCenter`` asks a store to
/// make in the transaction that settles the promise (`SignalStore.settlePromise(_:with:ifValueTypeIn:thenPosting:)`).
@_spi(SignalStoreDriver)
public struct PromiseSettlementPost: Sendable, Hashable {
    /// The signal it is posted to.
    @_spi(SignalStoreDriver) public var signalID: String
    /// The signal's payload.
    @_spi(SignalStoreDriver) public var payload: [UInt8]

    @_spi(SignalStoreDriver)
    public init(signalID: String, payload: [UInt8]) {
        self.signalID = signalID
        self.payload = payload
    }
}

/// How a promise was settled, as stored.
public struct PromiseSettlementRecord: Sendable, Hashable {
    /// The key its settler gave: settling again with the same key changes nothing.
    public var key: String
    /// Fulfilled, rejected, timed out or cancelled.
    public var outcome: PromiseOutcome
    /// The value (fulfilled) or the ``PromiseRejection`` (rejected) as JSON; empty otherwise.
    public var body: [UInt8]
    /// When it was settled.
    public var settledAt: Date

    @_spi(SignalStoreDriver)
    public init(key: String, outcome: PromiseOutcome, body: [UInt8], settledAt: Date) {
        self.key = key
        self.outcome = outcome
        self.body = body
        self.settledAt = settledAt
    }
}

extension PromiseRecord {
    /// A promise from the columns of its stored row (`limited`: 0 or 1; times: seconds since 1970),
    /// with the same errors in every store.
    package init(
        stored id: String, valueType: String, component: String, limited: Int, consumer: String?, createdAt: Double,
        deadline: Double?, retention: Double, settlementKey: String?, outcome: String?, body: Data?, settledAt: Double?
    ) throws(SignalError) {
        var settlement: PromiseSettlementRecord?
        if let settledAt {
            guard let settlementKey, let outcome else {
                throw .malformedRecord(
                    table: "promises", key: id, column: "settlement_key", reason: "settled without a key or outcome")
            }
            settlement = PromiseSettlementRecord(
                key: settlementKey, outcome: try PromiseOutcome(stored: outcome, promise: id),
                body: [UInt8](body ?? Data()), settledAt: Date(timeIntervalSince1970: settledAt))
        }
        self.init(
            id: id, valueType: valueType, component: component, limitedToComponent: limited != 0,
            fallbackConsumer: consumer.map(ConsumerID.init), createdAt: Date(timeIntervalSince1970: createdAt),
            deadline: deadline.map(Date.init(timeIntervalSince1970:)), retention: retention, settlement: settlement)
    }

    /// The value of its `limited` column (``limitedToComponent``: 1, else 0), as `init(stored:…)`
    /// reads it.
    package var storedLimited: Int { limitedToComponent ? 1 : 0 }

    /// The promise settled by `settlement`, when `SignalStore.settlePromise(_:with:ifValueTypeIn:thenPosting:)`
    /// settles it: when it is pending and its value type is one of `valueTypes` (any when `nil`);
    /// `nil` when it stays as it is.
    package func settled(by settlement: PromiseSettlementRecord, ifValueTypeIn valueTypes: [String]?) -> PromiseRecord?
    {
        guard self.settlement == nil, valueTypes?.contains(valueType) ?? true else { return nil }
        var settled = self
        settled.settlement = settlement
        return settled
    }

    /// Whom a settlement of this promise wakes, besides the runs its post to the fallback consumer
    /// wakes: every center when the promise has no fallback consumer (its waiters may be anywhere).
    package var settlementWakeUp: WakeTarget? { fallbackConsumer == nil ? .everyCenter : nil }
}
