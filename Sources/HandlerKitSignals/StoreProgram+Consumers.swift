extension StoreProgram where Result == ConsumerRecord? {
    /// Registers `consumer` as ``StorePlan/register(_:now:)`` does, unless a consumer with its id
    /// exists: then nothing changes, and the answer is that consumer (`nil` when `consumer` was
    /// registered). A try after a lost connection whose first try committed finds the consumer it
    /// registered, so it runs again as it is.
    package static func register(_ consumer: ConsumerRecord, now: Double) -> Self {
        let plan = StorePlan.register(consumer, now: now)
        let (insert, rest) = (plan.steps[0], Array(plan.steps.dropFirst()))
        return Self(
            plan.purpose, recordedAs: nil,
            .steps([insert]) { counts in
                guard counts == [1] else {
                    return .reading(StoreReads.consumer(consumer.id)) { existing in .done(existing, wakeUp: nil) }
                }
                return .steps(rest) { counts in .done(nil, wakeUp: plan.wakeUp(counts: [1] + counts)) }
            })
    }
}

extension ConsumerRecord {
    /// How this consumer, registered before, differs from `asked`, registered under the same id
    /// (as the end of a sentence); `nil` when it is the one asked for. The run does not count (a
    /// durable consumer moves to the run that takes it over), nor do the handler's bound arguments
    /// (the consumer keeps those it was registered with).
    package func differs(from asked: ConsumerRecord) -> String? {
        var differences: [String] = []
        if signalID != asked.signalID { differences.append("for signal '\(signalID)', not '\(asked.signalID)'") }
        if component != asked.component {
            differences.append("of component '\(component)', not '\(asked.component)'")
        }
        if lifetime != asked.lifetime {
            differences.append("with lifetime \(lifetime.rawValue), not \(asked.lifetime.rawValue)")
        }
        if mode != asked.mode { differences.append("with delivery \(mode.rawValue), not \(asked.mode.rawValue)") }
        if handlerID != asked.handlerID {
            differences.append("with handler '\(handlerID)', not '\(asked.handlerID)'")
        }
        guard !differences.isEmpty else { return nil }
        return differences.joined(separator: ", ")
            + "; remove it first (SignalCenter.remove(_:)) or register under another id"
    }
}
