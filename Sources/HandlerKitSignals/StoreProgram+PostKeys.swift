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
