import Foundation

extension Posting {
    /// The steps that write `postings` in their order at `now`, with the effects of each one's
    /// ``write(after:now:)`` made one after another (a later post of a signal sees the revision and
    /// the served marks an earlier one made), given what was read of their signals (`targets`, by
    /// signal id; a signal missing there has no record and no consumer). In few steps: all their
    /// deliveries in one, each consumer served once, and each signal's record as the last of its
    /// posts leaves it. With them, each post's answer, and whom they wake: the run of the consumers
    /// that take them when that is one run, every center when they are several.
    package static func write(
        _ postings: [Posting], after targets: [String: Targets], now: Double
    ) -> (steps: [StoreStep], results: [PostResult], wakeUp: WakeTarget?) {
        var targets = targets
        var made: [NewDelivery] = []
        var served: [String] = []
        var records: [StoreStep] = []
        var recordOf: [String: Int] = [:]
        var results: [PostResult] = []
        var wakeUp: WakeTarget?
        for posting in postings {
            var target = targets[posting.signalID] ?? Targets(previousRevision: nil, consumers: [])
            let decision = posting.decide(
                previousRevision: target.previousRevision, consumers: target.consumers.map(\.consumer))
            for (index, serves) in decision.deliveries {
                let consumer = target.consumers[index]
                made.append(posting.delivery(for: consumer.id, revision: decision.revision, now: now))
                if serves {
                    target.consumers[index].consumer.served = true
                    served.append(consumer.id)
                }
                wakeUp = WakeTarget.either(wakeUp, .run(consumer.runID))
            }
            target.previousRevision = decision.keepsRecord ? decision.revision : nil
            targets[posting.signalID] = target
            let record = posting.recordStep(decision, now: now)
            if let earlier = recordOf[posting.signalID] {
                records[earlier] = record
            } else {
                recordOf[posting.signalID] = records.count
                records.append(record)
            }
            results.append(posting.result(revision: decision.revision, deliveries: decision.deliveries.count))
        }
        // In the order of the list: a debounced delivery finds the one it collapses into on its
        // own, the deliveries between them are made together.
        var deliveries: [StoreStep] = []
        var plain: [NewDelivery] = []
        for delivery in made {
            if delivery.debounce == nil {
                plain.append(delivery)
                continue
            }
            if !plain.isEmpty { deliveries.append(.insertDeliveries(plain, now: now)) }
            plain = []
            deliveries.append(.debounceDelivery(delivery, now: now))
        }
        if !plain.isEmpty { deliveries.append(.insertDeliveries(plain, now: now)) }
        return (deliveries + served.map { .markServed(consumer: $0) } + records, results, wakeUp)
    }
}
