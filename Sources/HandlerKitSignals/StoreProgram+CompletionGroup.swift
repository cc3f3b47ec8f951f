import Foundation

/// What completing a group of deliveries in one transaction did (``StoreProgram/completeGroup(_:thenClaiming:now:)``).
package struct GroupCompletion: Sendable, Hashable {
    /// Whether each delivery was completed, in the order given (`false`: its claim was lost, and
    /// nothing of it changed).
    package var completed: [Bool]
    /// What the claim that followed the completions claimed; `nil` when none was asked, when a try
    /// after a lost connection answered from the first try's record, which keeps no claims (what
    /// that try claimed, the run's next claim that takes back lost claims finds), and when the store
    /// ran the group without its claim (`StoreProgram.unmarked`).
    package var claimed: ClaimedBatch?

    package init(completed: [Bool], claimed: ClaimedBatch?) {
        self.completed = completed
        self.claimed = claimed
    }
}

extension StoreProgram where Result == GroupCompletion {
    /// Completes each delivery in order as ``complete(_:endingConsumer:thenStarting:now:)`` does
    /// (each only while its run and attempt still hold its claim), then with `claim` claims as
    /// ``claim(_:now:)`` does, all in one transaction: the completions that finished while another
    /// transaction was in flight, committed together, with the claim of the next deliveries for the
    /// workers they free. Recorded: a try after a lost connection answers which completed.
    package static func completeGroup(
        _ deliveries: [(delivery: ClaimedDelivery, endingConsumer: Bool)], thenClaiming claim: ClaimRequest?,
        now: Double
    ) -> Self {
        @Sendable func claiming(_ completed: [Bool]) -> Stage {
            guard let claim else { return .done(GroupCompletion(completed: completed, claimed: nil), wakeUp: nil) }
            return StoreProgram<ClaimedBatch>.claim(claim, now: now).first.then { batch, _ in
                .done(GroupCompletion(completed: completed, claimed: batch), wakeUp: nil)
            }
        }
        @Sendable func completing(from index: Int, _ completed: [Bool]) -> Stage {
            guard index < deliveries.count else { return claiming(completed) }
            let (delivery, endingConsumer) = deliveries[index]
            let completion = StoreProgram<CompletionOutcome>.complete(
                delivery, endingConsumer: endingConsumer, thenStarting: nil, now: now)
            return completion.first.then { outcome, _ in completing(from: index + 1, completed + [outcome.completed]) }
        }
        var unmarked: (@Sendable () -> Self)?
        if claim != nil {
            unmarked = { @Sendable in completeGroup(deliveries, thenClaiming: nil, now: now) }
        }
        let marks = claim.flatMap { $0.startingFirst || $0.startingAll ? $0.runID : nil }
        return Self(
            deliveries.count == 1
                ? "completing delivery \(deliveries[0].delivery.key)" : "completing \(deliveries.count) deliveries",
            recordedAs: .group, marksStartsOf: marks, unmarked: unmarked,
            shortcut: .completeGroup(deliveries, thenClaiming: claim, now: now, answer: { $0 }),
            completing(from: 0, []))
    }
}

extension RecordedText where Value == GroupCompletion {
    /// Whether each delivery completed: `1` or `0` each, separated by spaces. The claim is not
    /// recorded.
    package static var group: Self {
        Self(
            encode: { group in group.completed.map { $0 ? "1" : "0" }.joined(separator: " ") },
            decode: { text in
                let flags = text.split(separator: " ")
                guard flags.allSatisfy({ $0 == "1" || $0 == "0" }) else { return nil }
                return GroupCompletion(completed: flags.map { $0 == "1" }, claimed: nil)
            })
    }
}
