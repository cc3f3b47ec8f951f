import Foundation

/// The steps of a store operation that changes several tables, in the order a store makes them in
/// one transaction, and whom the store wakes afterwards (see <doc:HowADeliveryMoves>).
///
/// ``SignalCenter`` makes the plans: every rule about which rows an operation changes is written
/// here, once. A store runs `steps` in order inside one transaction, collects how many rows each
/// changed (`counts`, one per step), and after its commit wakes the centers that `wakeUp(counts:)`
/// names.
@_spi(SignalStoreDriver)
public struct StorePlan: Sendable, Hashable {
    /// What the plan does, for messages: a store names it in its errors ("registering consumer …").
    @_spi(SignalStoreDriver) public let purpose: String
    /// The steps, in the order they are made.
    package let steps: [StoreStep]
    /// Whom to wake, when one of the steps at `whenChanged` changed a row (always, when empty).
    private let wake: Wake?

    private struct Wake: Sendable, Hashable {
        var target: WakeTarget
        var whenChanged: [Int]
    }

    package init(_ purpose: String, steps: [StoreStep], wake: (target: WakeTarget, whenChanged: [Int])? = nil) {
        self.purpose = purpose
        self.steps = steps
        self.wake = wake.map { Wake(target: $0.target, whenChanged: $0.whenChanged) }
    }

    /// The centers to wake once the plan's transaction committed, given the rows each step changed;
    /// `nil`: none.
    @_spi(SignalStoreDriver)
    public func wakeUp(counts: [Int]) -> WakeTarget? {
        guard let wake else { return nil }
        if wake.whenChanged.isEmpty { return wake.target }
        return wake.whenChanged.contains { $0 < counts.count && counts[$0] > 0 } ? wake.target : nil
    }

    /// A run starts: completions older than the history and signal records no one uses are forgotten.
    package static func startRun(now: Double) -> StorePlan {
        StorePlan(
            "forgetting old completions, unused signals and posts' idempotency keys",
            steps: [.forgetCompletions(now: now), .removeUnusedSignals(now: now), .forgetPostKeys(now: now)])
    }

    /// `run` ends (`taker` is `nil`), or is gone and taken over by `taker`: its claims are no longer
    /// claimed (a started attempt counts, by `retry`: the taker's policy, or the ending run's own),
    /// its run-tied consumers and their open deliveries are removed, with a taker its durable
    /// consumers and remaining deliveries move to it, and its record goes, then the signal records
    /// no one uses any more. A taker is woken when claims run again or consumers moved to it.
    package static func retire(
        _ run: String, takenOverBy taker: String?, retry: RetryPolicy, now: Double
    ) -> StorePlan {
        let attempts = InterruptedAttempts(
            maximumAttempts: retry.maximumAttempts, retryAt: now + retry.delay(after: 1).seconds,
            reason: taker == nil
                ? "its run ended before it was settled: attempt "
                : "the process running its handler died (crashed or was killed) during attempt ")
        var steps: [StoreStep] = [
            .interruptClaims(run: run, attempts: attempts), .removeRunTiedDeliveries(run: run),
            .removeRunTiedConsumers(run: run),
        ]
        if let taker {
            steps += [.moveConsumers(of: run, to: taker), .moveDeliveries(of: run, to: taker)]
        }
        steps += [.removeRun(run), .removeUnusedSignals(now: now)]
        let madeDue = steps.indices.filter { index in
            switch steps[index] {
            case .interruptClaims, .moveConsumers: true
            default: false
            }
        }
        return StorePlan(
            taker.map { "taking over run \(run) by run \($0)" } ?? "ending run \(run)", steps: steps,
            wake: taker.map { (.run($0), madeDue) })
    }

    /// `run` is suspended (or resumed): the claims whose handlers do not run (all but `keeping`)
    /// are given back, uncounted. Its run is woken when any was given back (for the same run resumed).
    package static func giveBack(_ run: String, keeping: [Int64]) -> StorePlan {
        StorePlan(
            "giving back the claims of run \(run) that did not start",
            steps: [.giveBackClaims(run: run, keeping: keeping)],
            wake: (.run(run), [0]))
    }

    /// A consumer is registered: stored, then given the revision its signal is kept with (if it is
    /// kept), and a once consumer that received it is served. Its run is woken when it received one.
    package static func register(_ consumer: ConsumerRecord, now: Double) -> StorePlan {
        var steps: [StoreStep] = [
            .insertConsumer(consumer, now: now), .deliverKeptRevision(consumer: consumer, now: now),
        ]
        if consumer.mode == .once { steps.append(.markServedWhenDelivered(consumer: consumer.id.rawValue)) }
        return StorePlan(
            "registering consumer \(consumer.id) for signal '\(consumer.signalID)'", steps: steps,
            wake: (.run(consumer.runID), [1]))
    }

    /// A consumer is removed: its pending deliveries first (claimed ones finish, dead ones stay for
    /// inspection), then the consumer, then the signal records no one uses any more.
    package static func removeConsumer(_ id: ConsumerID, now: Double) -> StorePlan {
        StorePlan(
            "removing consumer \(id)",
            steps: [
                .removePendingDeliveries(consumer: id.rawValue), .removeConsumer(id.rawValue),
                .removeUnusedSignals(now: now),
            ])
    }

    /// A waiting run holds a promise's fallback consumer: the consumer becomes `run`'s, then its
    /// pending deliveries do, only when the consumer exists. No one is woken.
    package static func hold(_ consumer: ConsumerID, for run: String) -> StorePlan {
        StorePlan(
            "holding consumer \(consumer) for run \(run)",
            steps: [
                .moveConsumer(consumer.rawValue, to: run),
                .movePendingDeliveries(consumer: consumer.rawValue, to: run),
            ])
    }

    /// A dead delivery is requeued: pending again, due now, with a fresh count of attempts; every
    /// center is woken, its owner among them.
    package static func requeue(_ key: DeliveryKey, now: Double) -> StorePlan {
        StorePlan(
            "requeueing delivery \(key)", steps: [.requeueDead(key: key.rawValue, now: now)], wake: (.everyCenter, [0]))
    }

    /// Dead deliveries are requeued by an operator: each pending again, due now, with a fresh count of
    /// attempts (as ``requeue(_:now:)``), in one transaction; every center is woken.
    package static func requeue(_ keys: [DeliveryKey], now: Double) -> StorePlan {
        StorePlan(
            keys.count == 1 ? "requeueing delivery \(keys[0])" : "requeueing \(keys.count) dead deliveries",
            steps: keys.map { .requeueDead(key: $0.rawValue, now: now) }, wake: (.everyCenter, Array(keys.indices)))
    }

    /// A delivery is discarded by an operator: removed, with its body, unless it is claimed (its handler
    /// may be running; it finishes or is taken over first). No completion is recorded: a once
    /// consumer stays served, and a later revision is delivered as usual.
    package static func discard(_ key: DeliveryKey) -> StorePlan {
        StorePlan("discarding delivery \(key)", steps: [.removeDelivery(key: key.rawValue)])
    }

    /// A consumer is discarded by an operator: its pending deliveries, then the dead ones listed in
    /// `dead` (those it had when the operator looked), then the consumer, then the signal records no
    /// one uses any more. A claimed delivery finishes (or is taken over) without its consumer.
    package static func discardConsumer(_ id: ConsumerID, dead: [DeliveryKey], now: Double) -> StorePlan {
        StorePlan(
            "discarding consumer \(id)",
            steps: [.removePendingDeliveries(consumer: id.rawValue)] + dead.map { .removeDelivery(key: $0.rawValue) }
                + [.removeConsumer(id.rawValue), .removeUnusedSignals(now: now)])
    }

    /// The history of completions is purged by an operator: those recorded before `completedBefore`,
    /// of `key` only when given. The history is what `SignalStore.completions(of:)` answers from;
    /// purging it changes no delivery.
    package static func purgeCompletions(of key: DeliveryKey?, completedBefore: Double) -> StorePlan {
        StorePlan(
            key.map { "purging the completions of \($0)" } ?? "purging the history of completions",
            steps: [.removeCompletions(key: key?.rawValue, completedBefore: completedBefore)])
    }

    /// The settled promises whose retention ended before `now` are removed (a center's upkeep of its
    /// promises, `SignalCenter.keepPromises()`). No one is woken.
    package static func removePromises(keptUntilBefore now: Date) -> StorePlan {
        StorePlan(
            "removing the promises kept until before \(now)",
            steps: [.removePromises(keptUntilBefore: now.timeIntervalSince1970)])
    }

    /// A claimed delivery is given back after its attempt failed, if its run and attempt still hold
    /// its claim: pending again from `retryAt`, or dead when there is none (retrying cannot help, or
    /// its attempts are used up). No one is woken: the run that claimed it retries it.
    package static func release(_ delivery: ClaimedDelivery, reason: String, retryAt: Date?) -> StorePlan {
        StorePlan(
            "releasing delivery \(delivery.key)",
            steps: [
                .releaseClaim(
                    ClaimRelease(
                        rowID: delivery.rowID, run: delivery.runID, attempt: delivery.attempt,
                        state: retryAt == nil ? .dead : .pending, reason: reason,
                        dueAt: retryAt?.timeIntervalSince1970))
            ])
    }

    /// The run a ``retire(_:takenOverBy:retry:now:)`` plan gives the retired run's consumers and
    /// deliveries to; `nil` for any other plan. A store makes a takeover only while this run is
    /// still recorded (checked in the takeover's transaction): a run that was itself taken over
    /// takes nothing over.
    package var taker: String? {
        steps.lazy.compactMap { step -> String? in
            if case .moveConsumers(_, let taker) = step { taker } else { nil }
        }.first
    }

    /// Whether the plan wakes anyone when some of its steps change rows (``wakeUp(counts:)``).
    package var wakesAnyone: Bool { wake != nil }

    /// What a ``retire(_:takenOverBy:retry:now:)`` plan changed, from the count of each step; `nil` when
    /// it changed nothing of the run (another taker was first, or the run left nothing).
    ///
    /// The run is in ``TakeoverReport/deadRuns`` when its record was still there: a run's record goes
    /// only when the run ends cleanly (its own retirement) or is taken over, so a recorded run that is
    /// gone died without ending. Otherwise it had ended cleanly and left its durable consumers or
    /// deliveries for the next process: it is in ``TakeoverReport/endedRuns``.
    package func takeoverReport(counts: [Int]) -> TakeoverReport? {
        var report = TakeoverReport()
        var changedRun = false
        var run: (id: String, wasRecorded: Bool)?
        for (step, count) in zip(steps, counts) {
            switch step {
            case .interruptClaims: report.interruptedDeliveries += count
            case .removeRunTiedConsumers: report.removedConsumers += count
            case .moveConsumers: report.adoptedConsumers += count
            case .removeRun(let id): run = (id, count > 0)
            case .removeUnusedSignals, .forgetCompletions, .giveBackClaims, .removeCompletions, .removePromises:
                continue
            default: break
            }
            if count > 0 { changedRun = true }
        }
        guard changedRun else { return nil }
        if let run {
            if run.wasRecorded { report.deadRuns = [run.id] } else { report.endedRuns = [run.id] }
        }
        return report
    }

    /// How many rows the first step of the plan that matches `kind` changed (0 when none matches).
    package func count(of kind: (StoreStep) -> Bool, in counts: [Int]) -> Int {
        zip(steps, counts).first { step, _ in kind(step) }?.1 ?? 0
    }

    /// Whether a ``hold(_:for:)`` plan found the consumer, from the count of each step.
    package func heldConsumer(counts: [Int]) -> Bool {
        count(of: { if case .moveConsumer = $0 { true } else { false } }, in: counts) > 0
    }

    /// Whether a ``removeConsumer(_:now:)`` plan found the consumer, from the count of each step.
    package func removedConsumer(counts: [Int]) -> Bool {
        count(of: { if case .removeConsumer = $0 { true } else { false } }, in: counts) > 0
    }

    /// Whether a ``release(_:reason:retryAt:)`` plan found the delivery's claim, from the count of each step.
    package func releasedClaim(counts: [Int]) -> Bool {
        count(of: { if case .releaseClaim = $0 { true } else { false } }, in: counts) > 0
    }
}

/// The centers a store wakes after a change made deliveries due (`StorePlan.wakeUp(counts:)`).
@_spi(SignalStoreDriver)
public enum WakeTarget: Sendable, Hashable {
    /// The centers of one run.
    case run(String)
    /// Every center of the store.
    case everyCenter
}

extension TakeoverReport {
    /// Adds what one more run's takeover changed.
    package mutating func add(_ other: TakeoverReport) {
        deadRuns += other.deadRuns
        endedRuns += other.endedRuns
        interruptedDeliveries += other.interruptedDeliveries
        adoptedConsumers += other.adoptedConsumers
        removedConsumers += other.removedConsumers
    }
}
