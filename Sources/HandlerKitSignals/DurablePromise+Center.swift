import Foundation
import HandlerKit

/// Making, settling and awaiting durable promises (see <doc:DurablePromises>).
extension SignalCenter {
    /// The longest promise id, in UTF-8 bytes.
    package static let maximumPromiseIDLength = 256

    /// Makes a pending promise of a `Value`, stored with `id`.
    ///
    /// - Parameters:
    ///   - type: the type of its value.
    ///   - id: its id, unique in the store (a new UUID by default).
    ///   - fallback: called with the settlement when the promise settles while no process awaits it
    ///     (as a signal delivery of this component: exactly one completion, retries, dead deliveries).
    ///     It receives `promiseID` (`String`), `outcome` (`String`: a ``PromiseOutcome`` raw value),
    ///     `value` (a `Value`, when fulfilled) and `rejection` (a ``PromiseRejection``, when
    ///     rejected), each when it declares a parameter of that name. A promise with a fallback is
    ///     limited to this component: exactly one of a waiting task and the fallback consumes it.
    ///   - limitedToComponent: only processes of this component may await it (others may settle it).
    ///   - deadline: when it times out, settled as ``PromiseOutcome/timedOut`` (by a waiting task,
    ///     by a running center of the store, or by the next one that starts).
    ///   - retention: how long it is kept once settled, for late re-attaches.
    ///   - awaitedWithin: with a fallback, how long this center holds a settlement for a task of its
    ///     own that has not begun to await the promise yet: a settlement that reaches this center
    ///     before any of its tasks awaits the promise (another process was faster than the
    ///     `value(of:)` call) waits here, claimed and not given to the fallback, for that long; a
    ///     `value(of:)` of this center in that time receives it. Then the fallback receives it. When
    ///     this run ends or is taken over first, the next process of the component runs the
    ///     fallback. `.zero`: this process does not await the promise; its fallback receives the
    ///     settlement at once.
    /// - Throws: ``PromiseError/promiseExists(id:)``, ``PromiseError/invalidPromise(id:reason:)``,
    ///   ``PromiseError/store(_:)``. Nothing is stored then.
    public func makePromise<Value: Codable & Sendable>(
        of type: Value.Type = Value.self, id: String = UUID().uuidString, fallback: Handler? = nil,
        limitedToComponent: Bool = false, deadline: Date? = nil, retention: Duration = .seconds(86_400),
        awaitedWithin: Duration = .seconds(60)
    ) async throws(PromiseError) -> DurablePromise<Value> {
        if isStopped { throw .store(.centerStopped(component: component, runID: runID)) }
        try Self.validate(promiseID: id)
        let now = Date()
        var plan = StorePlan("making promise '\(id)'", steps: [])
        var consumerID: ConsumerID?
        if let fallback {
            if fallback.isInvalidated { throw .invalidPromise(id: id, reason: "its fallback handler is invalidated") }
            let document: [UInt8]
            do {
                document = try fallback.storableJSON()
            } catch {
                throw .invalidPromise(
                    id: id, reason: "a delivery could not read its fallback handler '\(fallback.id)' back: \(error)")
            }
            let consumer = ConsumerRecord(
                id: ConsumerID(UUID().uuidString), signalID: Self.settlementSignal(of: id), component: component,
                runID: runID, lifetime: .durable, mode: .once, handler: document, handlerID: fallback.id)
            plan = .register(consumer, now: now.timeIntervalSince1970)
            consumerID = consumer.id
        }
        let record = PromiseRecord(
            id: id, valueType: DurablePromise<Value>.valueTypeName, component: component,
            limitedToComponent: limitedToComponent || fallback != nil, fallbackConsumer: consumerID, createdAt: now,
            deadline: deadline, retention: max(0, retention.seconds), settlement: nil)
        // Reserved before it exists: a settler may be faster than this call's return.
        let reserved = consumerID != nil && awaitedWithin > .zero
        if reserved { promiseWaiters.reserve(Self.settlementSignal(of: id), holding: awaitedWithin) }
        let inserted: Bool
        do {
            inserted = try await promiseStoreCall { () throws(SignalError) in
                try await store.insertPromise(record, applying: plan)
            }
        } catch {
            if reserved { _ = promiseWaiters.endReservation(Self.settlementSignal(of: id)) }
            throw error
        }
        if !inserted {
            if reserved { _ = promiseWaiters.endReservation(Self.settlementSignal(of: id)) }
            throw .promiseExists(id: id)
        }
        if let deadline { scheduleKeeping(at: deadline) }
        return DurablePromise(id: id)
    }

    /// Fulfils `promise` with `value`, from any process of any component. Settling it again under the
    /// same `settlementKey` changes nothing and succeeds.
    ///
    /// - Throws: ``PromiseError/alreadySettled(id:firstKey:firstOutcome:settledAt:)`` when it was settled
    ///   under another key, ``PromiseError/unknownPromise(id:)``,
    ///   ``PromiseError/wrongValueType(id:stored:requested:)``, ``PromiseError/store(_:)``.
    public func fulfil<Value>(
        _ promise: DurablePromise<Value>, with value: Value, settlementKey: String
    ) async throws(PromiseError) {
        let body = try Self.settlementBody(value, .fulfilled, of: promise)
        try await settle(
            promise.id, valueTypes: DurablePromise<Value>.valueTypeNames,
            PromiseSettlementRecord(key: settlementKey, outcome: .fulfilled, body: body, settledAt: Date()))
    }

    /// Rejects `promise` with `rejection`, from any process of any component; idempotent under
    /// `settlementKey` as ``fulfil(_:with:settlementKey:)`` is.
    public func reject<Value>(
        _ promise: DurablePromise<Value>, with rejection: PromiseRejection, settlementKey: String
    ) async throws(PromiseError) {
        let body = try Self.settlementBody(rejection, .rejected, of: promise)
        try await settle(
            promise.id, valueTypes: nil,
            PromiseSettlementRecord(key: settlementKey, outcome: .rejected, body: body, settledAt: Date()))
    }

    /// Cancels `promise`: settled as ``PromiseOutcome/cancelled``; idempotent under `settlementKey`.
    public func cancel<Value>(
        _ promise: DurablePromise<Value>, settlementKey: String = "cancelled"
    ) async throws(PromiseError) {
        try await settle(
            promise.id, valueTypes: nil,
            PromiseSettlementRecord(key: settlementKey, outcome: .cancelled, body: [], settledAt: Date()))
    }

    /// The stored record of `promise` (pending or settled); `nil` when the store has none.
    public func record<Value>(of promise: DurablePromise<Value>) async throws(PromiseError) -> PromiseRecord? {
        return try await promiseStoreCall { () throws(SignalError) in try await store.promise(promise.id) }
    }

    /// The promises of the store: all of them, or the settled (`true`) or pending (`false`) ones.
    public func promises(settled: Bool? = nil) async throws(PromiseError) -> [PromiseRecord] {
        return try await promiseStoreCall { () throws(SignalError) in try await store.promises(settled: settled) }
    }

    /// Waits until `promise` settles (in any process) and returns its value; at once when it is
    /// settled. Woken through the store, never polling. A promise with a fallback handler is
    /// consumed by this task: its fallback does not run for it. In the center that made the promise,
    /// the first wait also receives a settlement that reached the center before it began, within the
    /// promise's `awaitedWithin` (see <doc:DurablePromises>).
    ///
    /// Cancelling the task ends the wait with ``PromiseError/waitCancelled(id:)`` and leaves the
    /// promise as it is (a settlement that arrives then goes to the fallback handler). Suspending the
    /// center does not end the wait: while the center is suspended the task touches no file of the
    /// store, and after ``resume()`` it receives a settlement made meanwhile by any process — unless
    /// another process took the suspended run over first and ran the fallback handler
    /// (``PromiseError/consumedElsewhere(id:outcome:)``).
    ///
    /// - Throws: ``PromiseError/rejected(id:_:)``, ``PromiseError/timedOut(id:deadline:)`` and
    ///   ``PromiseError/cancelled(id:)`` for those settlements;
    ///   ``PromiseError/consumedElsewhere(id:outcome:)`` when the fallback (or another process) consumed
    ///   it first; ``PromiseError/wrongValueType(id:stored:requested:)``,
    ///   ``PromiseError/wrongComponent(id:limitedTo:awaitedFrom:)``, ``PromiseError/unknownPromise(id:)``,
    ///   ``PromiseError/waitCancelled(id:)``, ``PromiseError/store(_:)``.
    public func value<Value>(of promise: DurablePromise<Value>) async throws(PromiseError) -> Value {
        let id = promise.id
        let listener: any SignalWakeListener
        do {
            listener = try store.makeWakeListener()
        } catch {
            throw .store(error)
        }
        defer { listener.close() }
        // Registered first: a settlement this run delivers from now on is handed to this task (when it
        // is of this task's value type), not to the fallback.
        let waiter = PromiseWaiter(
            signalID: Self.settlementSignal(of: id), listener: listener, accepts: DurablePromise<Value>.holds)
        promiseWaiters.add(waiter)
        defer { promiseWaiters.remove(waiter) }
        // A settlement this center held for a task of its own since the promise was made is handed
        // over now; from here on, one that arrives goes to a task awaiting it, or to the fallback.
        for held in promiseWaiters.endReservation(waiter.signalID) {
            do {
                try await deliverHeld(held)
            } catch {
                throw .store(error)
            }
        }
        var record = try await load(id, from: store, waiting: true)
        if !DurablePromise<Value>.holds(record.valueType) {
            throw .wrongValueType(id: id, stored: record.valueType, requested: DurablePromise<Value>.valueTypeName)
        }
        if record.limitedToComponent && record.component != component {
            throw .wrongComponent(id: id, limitedTo: record.component, awaitedFrom: component)
        }
        var holding = false
        var settledSeen: ContinuousClock.Instant?
        var reposted = false
        if let consumer = record.fallbackConsumer {
            holding = try await waitingStoreCall { () throws(SignalError) in
                let plan = StorePlan.hold(consumer, for: self.runID)
                return plan.heldConsumer(counts: try await store.apply(plan))
            }
        }
        while true {
            if let payload = await waiter.payload() {
                return try Self.result(fromPayload: payload, of: record, as: Value.self)
            }
            if Task.isCancelled {
                if !waiter.cancel(), let payload = await waiter.payload() {
                    return try Self.result(fromPayload: payload, of: record, as: Value.self)
                }
                throw .waitCancelled(id: id)
            }
            if let settlement = record.settlement {
                guard let consumer = record.fallbackConsumer else {
                    return try Self.result(of: settlement, record, as: Value.self)
                }
                if !options.deliversAutomatically {
                    // This center delivers only when asked: the settlement is handed over here.
                    do {
                        try await deliverDue()
                    } catch {
                        throw .store(error)
                    }
                    if let payload = await waiter.payload() {
                        return try Self.result(fromPayload: payload, of: record, as: Value.self)
                    }
                }
                // Consumed, or held by a run that another task awaiting it started later: not this
                // task's (unless it is being handed over to it right now). Checked from the second look
                // on: at the first, this run's center is handing it over (its reads would delay that).
                var held = holding
                if held, settledSeen != nil { held = try await holds(consumer, store) }
                if !held {
                    if waiter.cancel() { throw .consumedElsewhere(id: id, outcome: settlement.outcome) }
                    continue
                }
                // Its post should have reached this run by now: a settler that died between settling and
                // posting left it unposted. Posting again is harmless (the consumer takes one settlement).
                if let seen = settledSeen, seen.duration(to: .now) >= .seconds(1), !reposted {
                    reposted = true
                    try await waitingStoreCall { () throws(SignalError) in
                        try await self.postSettlement(of: record, to: store)
                    }
                }
                settledSeen = settledSeen ?? .now
            } else if let deadline = record.deadline, deadline <= Date() {
                record = try await settle(id, valueTypes: nil, Self.timeout(at: deadline), sameKeyOnly: false)
                continue
            }
            var until = ContinuousClock.now + .seconds(60)
            if !record.isSettled, let deadline = record.deadline {
                until = min(until, .now + .seconds(max(0, deadline.timeIntervalSinceNow)))
            }
            if let seen = settledSeen { until = min(until, seen + .seconds(reposted ? 5 : 1)) }
            await withTaskCancellationHandler {
                await listener.next(deadline: until)
            } onCancel: {
                listener.close()
            }
            record = try await load(id, from: store, waiting: true)
        }
    }

    /// Times out the store's pending promises whose deadline passed (running their fallback
    /// handlers), posts again a settlement whose post was interrupted, and removes the settled
    /// promises whose retention ended. A center does this when it starts and at the deadlines of
    /// the promises it made; a process may call it at other times.
    @discardableResult
    public func keepPromises() async throws(PromiseError) -> PromiseUpkeep {
        var upkeep = PromiseUpkeep()
        let now = Date()
        upkeep.removed = try await promiseStoreCall { () throws(SignalError) in
            try await store.apply(.removePromises(keptUntilBefore: now))[0]
        }
        var next: Date?
        for promise in try await promiseStoreCall({ () throws(SignalError) in try await store.promises(settled: false) }
        ) {
            guard let deadline = promise.deadline else { continue }
            if deadline > now {
                next = min(next ?? deadline, deadline)
                continue
            }
            _ = try await settle(promise.id, valueTypes: nil, Self.timeout(at: deadline), sameKeyOnly: false)
            upkeep.timedOut += 1
        }
        let settled = try await promiseStoreCall { () throws(SignalError) in
            try await store.promises(settled: true).filter { $0.fallbackConsumer != nil }
        }
        if !settled.isEmpty {
            let consumers = try await promiseStoreCall { () throws(SignalError) in
                Set(try await store.consumers(of: nil).map(\.id))
            }
            for promise in settled where consumers.contains(promise.fallbackConsumer ?? ConsumerID("")) {
                try await promiseStoreCall { () throws(SignalError) in
                    try await self.postSettlement(of: promise, to: store)
                }
                upkeep.posted += 1
            }
        }
        if let next { scheduleKeeping(at: next) }
        return upkeep
    }

    // MARK: Settling

    /// Settles promise `id` (when `valueTypes` is given, only one stored under one of those names) and
    /// posts the settlement to its fallback consumer, in one store transaction. With `sameKeyOnly`, a
    /// settlement under another key fails; without, the promise is returned as it is settled.
    @discardableResult
    private func settle(
        _ id: String, valueTypes: [String]?, _ settlement: PromiseSettlementRecord, sameKeyOnly: Bool = true
    ) async throws(PromiseError) -> PromiseRecord {
        let record = try await promiseStoreCall { () throws(SignalError) in
            try await store.settlePromise(id, with: settlement, ifValueTypeIn: valueTypes) {
                record throws(SignalError) in
                // Again when settled before under the same key: a post interrupted then is made now; a
                // fallback consumer takes one settlement only.
                guard valueTypes?.contains(record.valueType) ?? true, let first = record.settlement,
                    !sameKeyOnly || first.key == settlement.key
                else { return nil }
                return try Self.settlementPost(of: record)
            }
        }
        guard let record else { throw .unknownPromise(id: id) }
        if let valueTypes, !valueTypes.contains(record.valueType), let requested = valueTypes.first {
            throw .wrongValueType(id: id, stored: record.valueType, requested: requested)
        }
        guard let first = record.settlement else { throw .unknownPromise(id: id) }
        if sameKeyOnly && first.key != settlement.key {
            throw .alreadySettled(id: id, firstKey: first.key, firstOutcome: first.outcome, settledAt: first.settledAt)
        }
        return record
    }

    /// The stored form of a settlement's value (or rejection), checked as `post` checks a payload:
    /// the fallback handler's delivery must be able to read it, so a value nested too deep or too
    /// large is refused here, with nothing stored.
    private static func settlementBody<Value>(
        _ value: some Encodable, _ outcome: PromiseOutcome, of promise: DurablePromise<Value>
    ) throws(PromiseError) -> [UInt8] {
        let member = outcome == .rejected ? "rejection" : "value"
        // The members `postSettlement` posts, so that the size checked is the size delivered.
        var payload = SignalPayload()
        payload.set("promiseID", promise.id)
        payload.set("outcome", outcome.rawValue)
        payload.set(PromiseWaiters.valueTypeMember, DurablePromise<Value>.valueTypeName)
        payload.set(member, value)
        do {
            _ = try payload.encoded(for: settlementSignal(of: promise.id))
        } catch {
            throw .invalidSettlement(id: promise.id, error)
        }
        // `encoded(for:)` throws for a value that `set` could not take, so the member is there.
        return payload.values[member].map { [UInt8]($0.jsonData()) } ?? []
    }

    /// The post of `record`'s settlement to its fallback consumer; `nil` without a fallback (or a settlement).
    private static func settlementPost(of record: PromiseRecord) throws(SignalError) -> PromiseSettlementPost? {
        guard record.fallbackConsumer != nil, let settlement = record.settlement else { return nil }
        var members: [String: HandlerValue] = [
            "promiseID": .string(record.id), "outcome": .string(settlement.outcome.rawValue),
            PromiseWaiters.valueTypeMember: .string(record.valueType),
        ]
        if !settlement.body.isEmpty {
            do {
                let body = try HandlerValue(json: settlement.body)
                members[settlement.outcome == .rejected ? "rejection" : "value"] = body
            } catch {
                throw .malformedRecord(table: "promises", key: record.id, column: "body", reason: "\(error)")
            }
        }
        return PromiseSettlementPost(
            signalID: settlementSignal(of: record.id), payload: [UInt8](HandlerValue.object(members).jsonData()))
    }

    /// Posts the settlement of `record` to its fallback consumer (none without a fallback).
    private func postSettlement(of record: PromiseRecord, to store: any SignalStore) async throws(SignalError) {
        guard let post = try Self.settlementPost(of: record) else { return }
        _ = try await store.post(post.signalID, payload: post.payload, keepUntil: nil)
    }

    private static func timeout(at deadline: Date) -> PromiseSettlementRecord {
        PromiseSettlementRecord(key: "timeout", outcome: .timedOut, body: [], settledAt: deadline)
    }

    /// The record of promise `id`; `waiting` for a task that awaits it (``waitingStoreCall(_:)``).
    private func load(
        _ id: String, from store: any SignalStore, waiting: Bool = false
    ) async throws(PromiseError) -> PromiseRecord {
        let read = { () async throws(SignalError) in try await store.promise(id) }
        let record = try await waiting ? waitingStoreCall(read) : promiseStoreCall(read)
        guard let record else { throw .unknownPromise(id: id) }
        return record
    }

    /// Whether this run holds `consumer` (it exists, and this run delivers to it).
    private func holds(_ consumer: ConsumerID, _ store: any SignalStore) async throws(PromiseError) -> Bool {
        return try await waitingStoreCall { () throws(SignalError) in
            let runID = self.runID
            return try await store.consumers(of: self.component).contains { $0.id == consumer && $0.runID == runID }
        }
    }

    /// `promiseStoreCall(_:)` for a task that awaits a promise: while the center is suspended it
    /// waits for ``resume()`` (or ``stop()``) instead of failing, and makes the call then.
    private func waitingStoreCall<T>(_ body: () async throws(SignalError) -> T) async throws(PromiseError) -> T {
        while true {
            await passGate { $0.promiseCallArrives() }
            do {
                return try await promiseStoreCall(body)
            } catch .store(.suspended) {
                // Suspended again between the gate and the call: wait for the next resume.
                continue
            }
        }
    }

    /// Runs a store call unless the center is suspended (``SignalCenter/storeCall(_:)``: a suspension
    /// waits for it), its error wrapped in ``PromiseError/store(_:)``.
    private func promiseStoreCall<T>(_ body: () async throws(SignalError) -> T) async throws(PromiseError) -> T {
        do {
            return try await storeCall(body)
        } catch {
            throw .store(error)
        }
    }

    /// The signal a promise's settlement is posted to, for its fallback consumer.
    package static func settlementSignal(of id: String) -> String { "handlerkit.promise." + id }

    private static func validate(promiseID id: String) throws(PromiseError) {
        if id.isEmpty { throw .invalidPromise(id: id, reason: "its id is empty") }
        if id.utf8.count > maximumPromiseIDLength {
            throw .invalidPromise(
                id: String(id.prefix(40)) + "…",
                reason: "its id is \(id.utf8.count) bytes long; the limit is \(maximumPromiseIDLength)")
        }
        if let first = id.unicodeScalars.first, let last = id.unicodeScalars.last,
            first.properties.isWhitespace || last.properties.isWhitespace
        {
            throw .invalidPromise(id: id, reason: "its id begins or ends with white space")
        }
    }

    // MARK: Upkeep

    /// Keeps the store's promises now (``keepPromises()``); problems go to `Options.onProblem`.
    func keepPromisesReportingProblems() async {
        guard !isStopped else { return }
        do {
            try await keepPromises()
        } catch .store(let error) {
            self.report(error)
        } catch {
            return
        }
    }

    private func scheduleKeeping(at deadline: Date) {
        promiseWaiters.schedule(at: deadline) { [weak self] in await self?.keepPromisesReportingProblems() }
    }
}

/// What ``SignalCenter/keepPromises()`` did.
public struct PromiseUpkeep: Sendable, Hashable {
    /// Promises settled as timed out.
    public var timedOut = 0
    /// Settlements posted to their fallback consumer again.
    public var posted = 0
    /// Settled promises removed after their retention.
    public var removed = 0

    init() {}
}
