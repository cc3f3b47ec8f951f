import Foundation
import HandlerKit

extension StoreProgram where Result == PostResult {
    /// Posts `posting` at `now` (`SignalStore.post(_:payload:keepUntil:)`): reads the signal's record
    /// and consumers (`StoreReads.postTargets(_:)`), then writes what `Posting.write(after:now:)`
    /// says and wakes the runs of the consumers that take it. Recorded: a try after a lost
    /// connection answers what the first one did instead of posting again.
    package static func post(_ posting: Posting, now: Double) -> Self {
        Self(
            "posting signal '\(posting.signalID)'", recordedAs: .post(posting),
            // A debounced post takes the program's steps, its signal's record locked like a bulk post's.
            shortcut: posting.fitsOneStatement
                ? .post(posting, now: now, answer: { $0 })
                : .posts([posting], now: now, answer: { $0.first ?? posting.result(revision: 0, deliveries: 0) }),
            .reading(StoreReads.postTargets(posting.signalID)) { targets in
                let (steps, result, wakeUp) = posting.write(after: targets, now: now)
                return .steps(steps) { _ in .done(result, wakeUp: wakeUp) }
            })
    }
}

extension StoreProgram where Result == [PostResult] {
    /// Posts `postings` in their order at `now`, each as ``post(_:now:)`` does (a later one sees what
    /// an earlier one of the same signal made), in one transaction: all of them or none. A posting
    /// with a key in `keys` (by index) is made once per key, as ``post(_:now:key:keepUntil:)`` makes
    /// it, its key kept until `keepUntil`. Wakes the run whose consumers take them when that is one
    /// run, every center when they are several. Recorded, as a single post is.
    package static func posts(
        _ postings: [Posting], now: Double, keys: [String?] = [], keepUntil: Double = 0
    ) -> Self {
        @Sendable func posting(from index: Int, into made: Locked<[PostResult]>, wakeUp: WakeTarget?) -> Stage {
            guard index < postings.count else { return .done(made.withLock { $0 }, wakeUp: wakeUp) }
            let next = postings[index]
            if index < keys.count, let key = keys[index] {
                return StoreProgram<PostResult>.post(next, now: now, key: key, keepUntil: keepUntil).first.then {
                    result, wakes in
                    made.withLock { $0.append(result) }
                    return posting(from: index + 1, into: made, wakeUp: WakeTarget.either(wakeUp, wakes))
                }
            }
            return .reading(StoreReads.postTargets(next.signalID)) { targets in
                let (steps, result, wakes) = next.write(after: targets, now: now)
                return .steps(steps) { _ in
                    made.withLock { $0.append(result) }
                    return posting(from: index + 1, into: made, wakeUp: WakeTarget.either(wakeUp, wakes))
                }
            }
        }
        // The results are collected in a list made afresh each time the program runs (a store may
        // run it again after a lost connection), by the stage that starts it.
        guard !keys.contains(where: { $0 != nil }) else {
            return Self(
                "posting \(postings.count) signals", recordedAs: .posts(postings),
                .steps([]) { _ in posting(from: 0, into: Locked([]), wakeUp: nil) })
        }
        return Self(
            "posting \(postings.count) signals", recordedAs: .posts(postings),
            shortcut: .posts(postings, now: now, answer: { $0 }),
            .steps([]) { _ in writing(postings[...], now: now, into: Locked([]), wakeUp: nil) })
    }

    /// Writes `postings` without keys as ``posts(_:now:keys:keepUntil:)`` does, a part at a time: a
    /// part's signals read together (at most `StoreReads.postTargetsPerRead` of them), then its
    /// writes (`Posting.write(_:after:now:)`).
    private static func writing(
        _ postings: ArraySlice<Posting>, now: Double, into made: Locked<[PostResult]>, wakeUp: WakeTarget?
    ) -> Stage {
        guard !postings.isEmpty else { return .done(made.withLock { $0 }, wakeUp: wakeUp) }
        var signals: [String] = []
        var seen: Set<String> = []
        var end = postings.startIndex
        while end < postings.endIndex {
            let signalID = postings[end].signalID
            if !seen.contains(signalID) {
                guard signals.count < StoreReads.postTargetsPerRead else { break }
                seen.insert(signalID)
                signals.append(signalID)
            }
            end += 1
        }
        let part = Array(postings[..<end])
        let rest = postings[end...]
        return .reading(StoreReads.postTargets(signals)) { targets in
            let (steps, results, wakes) = Posting.write(part, after: targets, now: now)
            return .steps(steps) { _ in
                made.withLock { $0 += results }
                return writing(rest, now: now, into: made, wakeUp: WakeTarget.either(wakeUp, wakes))
            }
        }
    }
}

extension WakeTarget {
    /// Whom to wake for two changes: the one run both name, or every center when they name several.
    package static func either(_ first: WakeTarget?, _ second: WakeTarget?) -> WakeTarget? {
        switch (first, second) {
        case (nil, let only), (let only, nil): only
        case (.run(let one)?, .run(let other)?) where one == other: .run(one)
        default: .everyCenter
        }
    }
}

extension RecordedText where Value == [PostResult] {
    /// The revision each post of `postings` made and how many deliveries, in their order: `3 1 1 2`.
    package static func posts(_ postings: [Posting]) -> Self {
        Self(
            encode: { $0.map { "\($0.revision) \($0.deliveries)" }.joined(separator: " ") },
            decode: { text in
                guard let numbers = RecordedText<[Int]>.numbers.decode(text), numbers.count == 2 * postings.count
                else { return nil }
                return postings.indices.map {
                    postings[$0].result(revision: numbers[2 * $0], deliveries: numbers[2 * $0 + 1])
                }
            })
    }
}

extension RecordedText where Value == PostResult {
    /// The revision a post of `posting` made and how many deliveries: `3 1`.
    package static func post(_ posting: Posting) -> Self {
        Self(
            encode: { "\($0.revision) \($0.deliveries)" },
            decode: { text in
                guard let numbers = RecordedText<[Int]>.numbers.decode(text), numbers.count == 2 else { return nil }
                return posting.result(revision: numbers[0], deliveries: numbers[1])
            })
    }
}

/// What settling a promise makes of the promise as read (`StoreProgram.settle`): the steps that
/// settle it (none when it stays as it is), the post of its settlement, the answer, and whom it wakes
/// besides the runs the post wakes.
package struct PromiseSettling: Sendable {
    package var steps: [StoreStep]
    package var post: Posting?
    package var answer: Result<PromiseRecord?, SignalError>
    package var wakeUp: WakeTarget?
}

extension StoreProgram where Result == Swift.Result<PromiseRecord?, SignalError> {
    /// Settles promise `id` with `settlement` when it is pending and its value type is one of
    /// `valueTypes` (any when `nil`), then posts at `now` what `post` returns for the promise as it
    /// then is, as ``post(_:now:)`` does (`SignalStore.settlePromise(_:with:ifValueTypeIn:thenPosting:)`).
    /// Answers the record (`nil` for an unknown promise, changing nothing), or the error `post`
    /// threw, asked before anything changed. Wakes every center when it settled a promise without a
    /// fallback consumer, else the runs the post wakes. Run again after a lost connection as it is:
    /// a try that finds the promise settled by the lost one answers the same record, and its post
    /// reaches a fallback consumer the first one served no more.
    package static func settle(
        _ id: String, with settlement: PromiseSettlementRecord, ifValueTypeIn valueTypes: [String]?, now: Double,
        thenPosting post: @escaping @Sendable (PromiseRecord) throws(SignalError) -> PromiseSettlementPost?
    ) -> Self {
        @Sendable func decide(_ stored: PromiseRecord?) -> PromiseSettling {
            guard let stored else { return PromiseSettling(steps: [], post: nil, answer: .success(nil), wakeUp: nil) }
            let settled = stored.settled(by: settlement, ifValueTypeIn: valueTypes)
            let record = settled ?? stored
            let request: PromiseSettlementPost?
            do throws(SignalError) {
                request = try post(record)
            } catch {
                return PromiseSettling(steps: [], post: nil, answer: .failure(error), wakeUp: nil)
            }
            return PromiseSettling(
                steps: settled == nil ? [] : [.settlePromise(id, settlement)],
                post: request.map { Posting(signalID: $0.signalID, payload: $0.payload, keepUntil: nil) },
                answer: .success(record), wakeUp: settled == nil ? nil : record.settlementWakeUp)
        }
        @Sendable func posting(_ decided: PromiseSettling) -> Stage {
            guard let posting = decided.post else { return .done(decided.answer, wakeUp: decided.wakeUp) }
            return .reading(StoreReads.postTargets(posting.signalID)) { targets in
                let (steps, _, posted) = posting.write(after: targets, now: now)
                return .steps(steps) { _ in .done(decided.answer, wakeUp: decided.wakeUp ?? posted) }
            }
        }
        @Sendable func settling(_ stored: PromiseRecord?) -> Stage {
            let decided = decide(stored)
            guard !decided.steps.isEmpty else { return posting(decided) }
            return .steps(decided.steps) { counts in
                // Settled by another transaction since it was read (PostgreSQL): as settled before.
                guard counts == [1] else { return .reading(StoreReads.promise(id), then: settling) }
                return posting(decided)
            }
        }
        return Self(
            "settling promise '\(id)'", recordedAs: nil,
            shortcut: .settle(id, now: now, decide: decide, answer: { $0 }),
            .reading(StoreReads.promise(id), then: settling))
    }
}
