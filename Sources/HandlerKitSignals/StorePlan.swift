/// The steps of a store operation that changes several tables, in the order a store makes them in
/// one transaction, and what their counts mean (see <doc:HowADeliveryMoves>).
///
/// A store runs ``steps`` in order inside one transaction, collects how many rows each changed
/// (`counts`, one per step), and reads its answer from them (``takeoverReport(counts:)``,
/// ``removedConsumer(counts:)``).
package struct StorePlan: Sendable, Hashable {
    /// The steps, in the order they are made.
    package let steps: [StoreStep]

    /// A run starts: completions older than the history and signal records no one uses are forgotten.
    package static func startRun(now: Double, completionHistory: Double) -> StorePlan {
        StorePlan(steps: [.forgetCompletions(before: now - completionHistory), .removeUnusedSignals(now: now)])
    }

    /// `run` ends (`taker` is `nil`), or is gone and taken over by `taker`: its claims become pending
    /// again, its run-tied consumers and their open deliveries are removed, with a taker its durable
    /// consumers and remaining deliveries move to it, and its record goes, then the signal records
    /// no one uses any more.
    package static func retire(_ run: String, takenOverBy taker: String?, now: Double) -> StorePlan {
        var steps: [StoreStep] = [
            .interruptClaims(run: run), .removeRunTiedDeliveries(run: run), .removeRunTiedConsumers(run: run),
        ]
        if let taker {
            steps += [.moveConsumers(of: run, to: taker), .moveDeliveries(of: run, to: taker)]
        }
        steps += [.removeRun(run), .removeUnusedSignals(now: now)]
        return StorePlan(steps: steps)
    }

    /// A consumer is removed: its pending deliveries first (claimed ones finish, dead ones stay for
    /// inspection), then the consumer, then the signal records no one uses any more.
    package static func removeConsumer(_ id: ConsumerID, now: Double) -> StorePlan {
        StorePlan(steps: [
            .removePendingDeliveries(consumer: id.rawValue), .removeConsumer(id.rawValue),
            .removeUnusedSignals(now: now),
        ])
    }

    /// What a ``retire(_:takenOverBy:now:)`` plan changed, from the count of each step.
    package func takeoverReport(counts: [Int]) -> TakeoverReport {
        var report = TakeoverReport()
        for (step, count) in zip(steps, counts) {
            switch step {
            case .interruptClaims: report.interruptedDeliveries += count
            case .removeRunTiedConsumers: report.removedConsumers += count
            case .moveConsumers: report.adoptedConsumers += count
            default: continue
            }
        }
        return report
    }

    /// Whether a ``removeConsumer(_:now:)`` plan found the consumer, from the count of each step.
    package func removedConsumer(counts: [Int]) -> Bool {
        zip(steps, counts).contains { step, count in
            if case .removeConsumer = step { count > 0 } else { false }
        }
    }
}

extension TakeoverReport {
    /// Whether a takeover made deliveries due for the taker (claims that run again, or consumers it
    /// now delivers), so that the taker is woken.
    package var madeDeliveriesDue: Bool { interruptedDeliveries > 0 || adoptedConsumers > 0 }
}

extension DeadDelivery {
    /// Whether a dead delivery owned by `owner` (of `ownerComponent`) moves to `runID` of `component`
    /// that requeues it, should its owner be gone: only a delivery of another run of the same
    /// component does. A store moves it when this holds and it finds the owner gone.
    package static func requeueMayMove(
        owner: String, ownerComponent: String, to runID: String, of component: String
    ) -> Bool {
        owner != runID && ownerComponent == component
    }
}
