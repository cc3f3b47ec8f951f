import Foundation

extension StoreProgram where Result == PostResult {
    /// Posts `posting` at `now` as ``post(_:now:)`` does, once per idempotency key: the post takes
    /// `key` (kept until `keepUntil`) and records its answer with it in the same transaction; a post
    /// whose key another post still keeps changes nothing and answers what that post answered. A
    /// try after a lost connection whose first try committed finds the key taken, so it runs again
    /// as it is. (An answer that cannot be read, which no post of this code records, reads as
    /// revision 0 without deliveries.)
    package static func post(_ posting: Posting, now: Double, key: String, keepUntil: Double) -> Self {
        let plain = post(posting, now: now)
        let text = RecordedText<PostResult>.post(posting)
        return Self(
            plain.purpose, recordedAs: nil,
            .steps([.takePostKey(key, now: now, keepUntil: keepUntil)]) { counts in
                guard counts == [1] else {
                    return .reading(StoreReads.postKeyAnswer(key)) { answer in
                        .done(
                            answer.flatMap(text.decode) ?? posting.result(revision: 0, deliveries: 0), wakeUp: nil)
                    }
                }
                return plain.first.then { result, wakeUp in
                    .steps([.recordPostKey(key, answer: text.encode(result))]) { _ in .done(result, wakeUp: wakeUp) }
                }
            })
    }
}

extension StoreProgram.Stage {
    /// This stage and the ones that follow it, with `next` in place of its answer: what `next`
    /// makes of the answer and the wake-up follows in the same transaction.
    package func then(_ next: @escaping @Sendable (Result, WakeTarget?) -> Self) -> Self {
        switch self {
        case .steps(let steps, let following):
            return .steps(steps) { counts in following(counts).then(next) }
        case .read(let read):
            return .read(
                StoreProgram.PendingRead(
                    statement: read.statement,
                    afterRows: { rows throws(SignalError) in try read.afterRows(rows).then(next) },
                    afterTables: { tables in read.afterTables(tables).then(next) }))
        case .change(let change):
            return .change(
                StoreProgram.PendingChange(
                    change: change.change,
                    afterRows: { rows throws(SignalError) in try change.afterRows(rows).then(next) },
                    inTables: { tables in change.inTables(&tables).then(next) }))
        case .done(let result, let wakeUp):
            return next(result, wakeUp)
        }
    }
}
