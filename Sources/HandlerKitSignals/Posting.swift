import Foundation

/// A post, decided once for every store (see <doc:HowADeliveryMoves>): the revision it makes, which
/// consumers of the signal receive it and which of them it serves, and what becomes of the signal's
/// record. A store reads the signal's revision and its consumers, and writes what ``decide(previousRevision:consumers:)``
/// says in the same transaction; a store whose post is one SQL statement takes the same rules as SQL
/// conditions (``receivesSQL(mode:served:)``, ``servesSQL(mode:)``, ``keepsRecordSQL(hasConsumer:keepUntil:)``,
/// ``revisionSQL(after:)``).
package struct Posting: Sendable {
    /// The signal posted, and the payload's JSON object.
    package var signalID: String
    package var payload: [UInt8]
    /// Until when the signal is kept for consumers that register later (seconds since 1970), or `nil`.
    package var keepUntil: Double?
    /// The time before which no delivery of the post starts (seconds since 1970), or `nil` for none.
    package var notBefore: Double?
    /// The ordering key of the post's deliveries: a consumer runs its deliveries of one key one at a
    /// time, in the order posted (`StoreReads.orderCondition`); `nil` for none.
    package var orderKey: String?
    /// How the post's deliveries are debounced (``Debounce``), or `nil` for not at all.
    package var debounce: Debouncing?

    /// A debounce as a post keeps it: its key, its window and its maximum delay in seconds.
    package struct Debouncing: Sendable, Hashable {
        package var key: String
        package var window: Double
        package var maximumDelay: Double?

        package init(key: String, window: Double, maximumDelay: Double?) {
            self.key = key
            self.window = window
            self.maximumDelay = maximumDelay
        }
    }

    package init(
        signalID: String, payload: [UInt8], keepUntil: Date?, notBefore: Date? = nil, orderKey: String? = nil,
        debounce: Debouncing? = nil
    ) {
        self.signalID = signalID
        self.payload = payload
        self.orderKey = orderKey
        self.debounce = debounce
        self.keepUntil = keepUntil?.timeIntervalSince1970
        self.notBefore = notBefore?.timeIntervalSince1970
    }

    /// When the post's deliveries made at `now` are due: `now`, or its `notBefore` when later; a
    /// debounce's window after that.
    package func due(now: Double) -> Double { max(now, notBefore ?? now) + (debounce?.window ?? 0) }

    /// Whether a store's one-statement post (a shortcut of the post program) may make it: one whose
    /// deliveries are debounced takes the program's steps.
    package var fitsOneStatement: Bool { debounce == nil }

    /// The delivery for consumer `consumer` of revision `revision`, made at `now`.
    func delivery(for consumer: String, revision: Int, now: Double) -> NewDelivery {
        NewDelivery(
            consumer: consumer, revision: revision, payload: payload, due: due(now: now), orderKey: orderKey,
            debounce: debounce)
    }

    /// One consumer of the signal as the store read it: its stored mode, and whether it was served
    /// (a once consumer that received a revision).
    package struct Consumer: Sendable {
        package var mode: String
        package var served: Bool

        package init(mode: String, served: Bool) {
            self.mode = mode
            self.served = served
        }
    }

    /// The signal's record and consumers as a post reads them (`StoreReads.postTargets(_:)`).
    package struct Targets: Sendable {
        /// The revision of the signal's record; `nil` when it has none.
        package var previousRevision: Int?
        /// Its consumers in the order they registered: each one's id, its run, and what the rules
        /// read of it.
        package var consumers: [(id: String, runID: String, consumer: Consumer)]

        package init(previousRevision: Int?, consumers: [(id: String, runID: String, consumer: Consumer)]) {
            self.previousRevision = previousRevision
            self.consumers = consumers
        }
    }

    /// What a post writes.
    package struct Decision: Sendable {
        /// The revision it makes.
        package var revision: Int
        /// The consumers that receive it, by their index in the list the store read, in that order,
        /// each with whether it is then marked served.
        package var deliveries: [(consumer: Int, serves: Bool)]
        /// Whether the signal's record is stored (with ``Posting/keptPayload`` and `keepUntil`) or
        /// removed.
        package var keepsRecord: Bool
    }

    /// What the post writes, given the revision of the signal's record (`nil` when it has none) and
    /// the signal's consumers, in the order they registered.
    package func decide(previousRevision: Int?, consumers: [Consumer]) -> Decision {
        Decision(
            revision: Self.revision(after: previousRevision),
            deliveries: consumers.indices.filter { Self.receives(consumers[$0]) }.map { index in
                (consumer: index, serves: Self.serves(mode: consumers[index].mode))
            },
            keepsRecord: keepsRecord(hasConsumer: !consumers.isEmpty))
    }

    /// The revision after the record's `previous`: 1 when the signal has no record (never posted, or
    /// its record was removed).
    package static func revision(after previous: Int?) -> Int { (previous ?? 0) + 1 }

    /// Whether a consumer receives the revision: every consumer but a once consumer already served.
    package static func receives(_ consumer: Consumer) -> Bool {
        !(consumer.served && serves(mode: consumer.mode))
    }

    /// Whether receiving a revision serves a consumer of this stored mode: a once consumer takes no
    /// later revision.
    package static func serves(mode: String) -> Bool { mode == DeliveryMode.once.rawValue }

    /// Whether the signal's record is stored: when the signal has consumers (served or not), or the
    /// post keeps it for late consumers. Otherwise it is removed, and nothing of the post is stored.
    package func keepsRecord(hasConsumer: Bool) -> Bool { hasConsumer || keepUntil != nil }

    /// The payload the signal's record keeps: the post's while the signal is kept for late consumers,
    /// else none (no later registration receives it).
    package var keptPayload: [UInt8] { keepUntil == nil ? [] : payload }

    /// What the post did, for its caller.
    package func result(revision: Int, deliveries: Int) -> PostResult {
        PostResult(signalID: SignalID(signalID), revision: revision, deliveries: deliveries, kept: keepUntil != nil)
    }

    /// The steps that write the post at `now`, given what it read: a delivery for each consumer that
    /// takes it (and its mark when that serves the consumer), then the signal's record kept or
    /// removed. With them, the post's answer and whom it wakes: the run of the consumer that takes
    /// it, every center when consumers of several runs do, none when no consumer does.
    package func write(
        after targets: Targets, now: Double
    ) -> (steps: [StoreStep], result: PostResult, wakeUp: WakeTarget?) {
        let decision = decide(previousRevision: targets.previousRevision, consumers: targets.consumers.map(\.consumer))
        var steps: [StoreStep] = []
        var runs: Set<String> = []
        for (index, serves) in decision.deliveries {
            let target = targets.consumers[index]
            let delivery = delivery(for: target.id, revision: decision.revision, now: now)
            steps.append(
                debounce == nil
                    ? .insertDelivery(
                        consumer: target.id, revision: decision.revision, payload: payload, now: now,
                        due: delivery.due, orderKey: orderKey)
                    : .debounceDelivery(delivery, now: now))
            if serves { steps.append(.markServed(consumer: target.id)) }
            runs.insert(target.runID)
        }
        steps.append(recordStep(decision, now: now))
        let wakeUp: WakeTarget? = runs.count > 1 ? .everyCenter : runs.first.map { .run($0) }
        return (steps, result(revision: decision.revision, deliveries: decision.deliveries.count), wakeUp)
    }

    /// The step that leaves the signal's record as `decision` says: stored, or removed.
    func recordStep(_ decision: Decision, now: Double) -> StoreStep {
        decision.keepsRecord
            ? .keepSignal(
                signalID, revision: decision.revision, payload: keptPayload, now: now, keepUntil: keepUntil,
                notBefore: notBefore)
            : .removeSignal(signalID)
    }

    /// ``revision(after:)`` in SQL: `previous` is an SQL expression of an integer, NULL without a record.
    package static func revisionSQL(after previous: String) -> String { "COALESCE(\(previous), 0) + 1" }

    /// ``receives(_:)`` in SQL, over the expressions of a consumer's stored mode (text) and its served
    /// mark (an integer, 0 when not served).
    package static func receivesSQL(mode: String, served: String) -> String {
        "NOT (\(served) <> 0 AND \(servesSQL(mode: mode)))"
    }

    /// ``serves(mode:)`` in SQL, over the expression of a consumer's stored mode.
    package static func servesSQL(mode: String) -> String { "\(mode) = \(DeliveryMode.once.sqlLiteral)" }

    /// ``keepsRecord(hasConsumer:)`` in SQL, over a boolean expression and the expression of the
    /// post's keep (seconds since 1970, NULL when not kept).
    package static func keepsRecordSQL(hasConsumer: String, keepUntil: String) -> String {
        "(\(hasConsumer) OR \(keepUntil) IS NOT NULL)"
    }
}
