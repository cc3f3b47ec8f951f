import Foundation

/// The tables as a JSON document (or any other coding), for a store that keeps them in a file: each
/// table a list in a fixed order (so that the same tables always encode the same way), bytes as
/// base64, states and modes as their stored text. The types of the rows are the core's own and stay
/// private to this file: a store only encodes and decodes ``SignalTables`` whole.
@_spi(SignalStoreDriver)
extension SignalTables: Codable {
    private enum CodingKeys: String, CodingKey {
        case completionHistory, nextRowID, runs, consumers, signals, deliveries, completions, promises, postKeys
    }

    /// Reads tables that ``encode(to:)`` wrote; throws a `DecodingError` (or the `SignalError` of a
    /// record that cannot be read) for anything else.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(completionHistorySeconds: try container.decode(Double.self, forKey: .completionHistory))
        nextRowID = try container.decode(Int64.self, forKey: .nextRowID)
        for run in try container.decode([StoredRun].self, forKey: .runs) {
            runs[run.id] = run.component
            runStarts[run.id] = run.startedAt
            runProcesses[run.id] = run.processID
            if run.suspended { suspended.insert(run.id) }
        }
        consumers = try container.decode([StoredConsumer].self, forKey: .consumers).map { try $0.consumer() }
        for signal in try container.decode([StoredSignal].self, forKey: .signals) {
            signals[signal.id] = Signal(
                revision: signal.revision, postedAt: signal.postedAt, payload: [UInt8](signal.payload),
                keepUntil: signal.keepUntil, notBefore: signal.notBefore)
        }
        for delivery in try container.decode([StoredDelivery].self, forKey: .deliveries) {
            deliveries[delivery.rowID] = try delivery.delivery()
        }
        completions = try container.decode([StoredCompletion].self, forKey: .completions).map(\.completion)
        for promise in try container.decode([StoredPromise].self, forKey: .promises) {
            promises[promise.id] = try promise.record()
        }
        // Absent from tables written before posts had idempotency keys.
        postKeys = try container.decodeIfPresent([String: PostKey].self, forKey: .postKeys) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(completionHistory, forKey: .completionHistory)
        try container.encode(nextRowID, forKey: .nextRowID)
        let storedRuns = runs.keys.sorted().map { id in
            StoredRun(
                id: id, component: runs[id] ?? "", startedAt: runStarts[id], processID: runProcesses[id],
                suspended: suspended.contains(id))
        }
        try container.encode(storedRuns, forKey: .runs)
        try container.encode(consumers.map(StoredConsumer.init), forKey: .consumers)
        let storedSignals = signals.sorted { $0.key < $1.key }.map { id, signal in
            StoredSignal(
                id: id, revision: signal.revision, postedAt: signal.postedAt, payload: Data(signal.payload),
                keepUntil: signal.keepUntil, notBefore: signal.notBefore)
        }
        try container.encode(storedSignals, forKey: .signals)
        let storedDeliveries = deliveries.sorted { $0.key < $1.key }.map { StoredDelivery($1, rowID: $0) }
        try container.encode(storedDeliveries, forKey: .deliveries)
        try container.encode(completions.map(StoredCompletion.init), forKey: .completions)
        try container.encode(
            promises.keys.sorted().compactMap { promises[$0].map(StoredPromise.init) }, forKey: .promises)
        try container.encode(postKeys, forKey: .postKeys)
    }
}

private struct StoredRun: Codable {
    var id: String
    var component: String
    var startedAt: Date?
    var processID: Int?
    var suspended: Bool
}

private struct StoredConsumer: Codable {
    var id, signalID, component, runID, lifetime, mode, handlerID: String
    var handler: Data
    var delivered: Bool

    init(_ consumer: SignalTables.Consumer) {
        let record = consumer.record
        (id, signalID, component, runID) = (record.id.rawValue, record.signalID, record.component, record.runID)
        (lifetime, mode, handlerID) = (record.lifetime.rawValue, record.mode.rawValue, record.handlerID)
        handler = Data(record.handler)
        delivered = consumer.delivered
    }

    func consumer() throws -> SignalTables.Consumer {
        let record = try ConsumerRecord(
            stored: id, signalID: signalID, component: component, runID: runID, lifetime: lifetime, mode: mode,
            handler: handler, handlerID: handlerID)
        return SignalTables.Consumer(record: record, delivered: delivered)
    }
}

private struct StoredSignal: Codable {
    var id: String
    var revision: Int
    var postedAt: Date
    var payload: Data
    var keepUntil: Date?
    /// Absent in tables written before delayed posts.
    var notBefore: Double?
}

private struct StoredDelivery: Codable {
    var rowID: Int64
    var key, consumerID, signalID, component, ownerRun, lifetime, handlerID, state: String
    var revision, attempt: Int
    var handler, payload: Data
    var claimedBy, lastError: String?
    var claimedAt: Date?
    var notBefore, madeAt: Date
    var started, crashed: Bool
    /// Absent in tables written before ordering keys, and before debounced posts.
    var orderKey, debounceKey: String?

    init(_ row: SignalTables.Delivery, rowID: Int64) {
        self.rowID = rowID
        (key, consumerID, signalID, component) = (
            row.key.rawValue, row.consumerID.rawValue, row.signalID, row.component
        )
        (ownerRun, lifetime, handlerID, state) = (
            row.ownerRun, row.lifetime.rawValue, row.handlerID, row.state.rawValue
        )
        (revision, attempt, handler, payload) = (row.revision, row.attempt, Data(row.handler), Data(row.payload))
        (claimedBy, lastError, claimedAt) = (row.claimedBy, row.lastError, row.claimedAt)
        (notBefore, madeAt, started, crashed) = (row.notBefore, row.madeAt, row.started, row.crashed)
        (orderKey, debounceKey) = (row.orderKey, row.debounceKey)
    }

    func delivery() throws -> SignalTables.Delivery {
        guard let state = DeliveryState(rawValue: state) else {
            throw SignalError.malformedRecord(
                table: "deliveries", key: key, column: "state", reason: "unknown state '\(state)'")
        }
        var row = SignalTables.Delivery(
            key: DeliveryKey(key), consumerID: ConsumerID(consumerID), signalID: signalID, revision: revision,
            component: component, ownerRun: ownerRun,
            lifetime: try ConsumerLifetime(stored: lifetime, consumer: consumerID), handlerID: handlerID,
            handler: [UInt8](handler), payload: [UInt8](payload), notBefore: notBefore, madeAt: madeAt,
            orderKey: orderKey)
        (row.state, row.claimedBy, row.claimedAt, row.attempt) = (state, claimedBy, claimedAt, attempt)
        (row.lastError, row.started, row.crashed, row.debounceKey) = (lastError, started, crashed, debounceKey)
        return row
    }
}

private struct StoredCompletion: Codable {
    var key, runID, consumerID, signalID: String
    var attempt, revision: Int
    var completedAt: Date

    init(_ completion: SignalTables.Completion) {
        (key, runID, attempt) = (completion.record.key.rawValue, completion.record.runID, completion.record.attempt)
        (consumerID, signalID) = (completion.consumerID.rawValue, completion.signalID)
        (revision, completedAt) = (completion.revision, completion.completedAt)
    }

    var completion: SignalTables.Completion {
        SignalTables.Completion(
            record: CompletionRecord(key: DeliveryKey(key), runID: runID, attempt: attempt),
            consumerID: ConsumerID(consumerID), signalID: signalID, revision: revision, completedAt: completedAt)
    }
}

private struct StoredPromise: Codable {
    var id, valueType, component: String
    var limitedToComponent: Bool
    var fallbackConsumer: String?
    var createdAt: Date
    var deadline: Date?
    var retention: Double
    var settlementKey, outcome: String?
    var body: Data?
    var settledAt: Date?

    init(_ promise: PromiseRecord) {
        (id, valueType, component) = (promise.id, promise.valueType, promise.component)
        (limitedToComponent, fallbackConsumer) = (promise.limitedToComponent, promise.fallbackConsumer?.rawValue)
        (createdAt, deadline, retention) = (promise.createdAt, promise.deadline, promise.retention)
        (settlementKey, outcome) = (promise.settlement?.key, promise.settlement?.outcome.rawValue)
        (body, settledAt) = (promise.settlement.map { Data($0.body) }, promise.settlement?.settledAt)
    }

    func record() throws -> PromiseRecord {
        var settlement: PromiseSettlementRecord?
        if let settledAt {
            guard let settlementKey, let outcome else {
                throw SignalError.malformedRecord(
                    table: "promises", key: id, column: "settlementKey", reason: "settled without a key or outcome")
            }
            settlement = PromiseSettlementRecord(
                key: settlementKey, outcome: try PromiseOutcome(stored: outcome, promise: id),
                body: [UInt8](body ?? Data()), settledAt: settledAt)
        }
        return PromiseRecord(
            id: id, valueType: valueType, component: component, limitedToComponent: limitedToComponent,
            fallbackConsumer: fallbackConsumer.map(ConsumerID.init), createdAt: createdAt, deadline: deadline,
            retention: retention, settlement: settlement)
    }
}
