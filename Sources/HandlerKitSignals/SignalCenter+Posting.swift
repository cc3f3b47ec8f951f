import Foundation
import Tracing

extension SignalCenter {
    /// How long a post's idempotency key is kept: a post with the same key within this time posts
    /// nothing and returns the first post's result.
    public static let idempotencyKeyRetention = Duration.seconds(86_400)

    /// Posts a new revision of `signal`. The result says how many consumers receive it; with none,
    /// `ifUnconsumed` decides whether it is kept for a consumer that registers later.
    ///
    /// With `notBefore`, no delivery of the revision starts before that time (a delayed post): its
    /// deliveries are stored at once, so they survive the processes that would run them, and the
    /// center that runs them wakes for them at that time (see <doc:SignalCenterLifecycle#Delayed-posts>). A consumer that
    /// registers later and receives a kept revision receives it not before that time either. A time
    /// already past delivers at once.
    ///
    /// With an `orderingKey` (say, the id of a conversation, or of a file), the deliveries of this
    /// post run after those of earlier posts with the same key to the same consumer: one at a time,
    /// in the order posted, across all processes of the consumer's component, while deliveries of
    /// other keys and without a key overtake them (see <doc:WorkQueues#Ordering-keys>).
    ///
    /// With a `debounce`, posts with the same debounce key collapse: the post's delivery to a consumer
    /// that still waits for a delivery of that key (not yet claimed) takes this post's payload and
    /// runs once the posts stop for the debounce's window, instead of running once per post (see
    /// ``Debounce``).
    ///
    /// With an `idempotencyKey` (say, the id of the client's request), the post is made once per key:
    /// a post with a key that an earlier post took within ``idempotencyKeyRetention`` (24 hours)
    /// stores nothing and returns that post's result, so a request tried again (a client's retry, a
    /// process that crashed before answering) posts once. Keys are shared by every process of the
    /// store, whatever the signal.
    ///
    /// - Throws: `SignalError.invalidSignalID`, `.invalidPayload`; `.payloadTooDeep` or
    ///   `.payloadTooLarge` for a payload a delivery could not read, `.invalidDeliveryTime` for a
    ///   `notBefore` that is not a finite time, `.invalidPostKey` for an idempotency, ordering or
    ///   debounce key that is empty or over 256 bytes, `.invalidDeliveryTime` too for a debounce
    ///   window that is not above zero (nothing was posted); `.storeBusy` (nothing was posted; safe to post again)
    ///   and the other store errors.
    @discardableResult
    public func post(
        _ signal: SignalID, payload: SignalPayload = SignalPayload(), ifUnconsumed: UnconsumedPolicy = .report,
        notBefore: Date? = nil, idempotencyKey: String? = nil, orderingKey: String? = nil, debounce: Debounce? = nil
    ) async throws(SignalError) -> PostResult {
        try checkRunning()
        let signalID = try signal.validated()
        try Self.checkTime(notBefore, of: signalID)
        try Self.checkKey(idempotencyKey, of: signalID)
        try Self.checkOrderingKey(orderingKey, of: signalID)
        let debouncing = try debounce?.checked(of: signalID)
        // A producer span, in the poster's trace; its context travels with the post, and the
        // span of each delivery links to it.
        let span = InstrumentationSystem.tracer.startSpan("signal post", ofKind: .producer)
        defer { span.end() }
        span.attributes["handlerkit.component"] = component
        span.attributes["handlerkit.signal"] = signalID
        if let notBefore { span.attributes["handlerkit.not_before"] = notBefore.timeIntervalSince1970 }
        if let orderingKey { span.attributes["handlerkit.ordering_key"] = orderingKey }
        do throws(SignalError) {
            let encoded = try payload.encoded(for: signalID, context: Self.postContext(of: span))
            var keepUntil: Date?
            if case .keep(let duration) = ifUnconsumed { keepUntil = Date().addingTimeInterval(duration.seconds) }
            let result = try await storeCall { () throws(SignalError) in
                let posting = Posting(
                    signalID: signalID, payload: encoded, keepUntil: keepUntil, notBefore: notBefore,
                    orderKey: orderingKey, debounce: debouncing)
                let now = Date().timeIntervalSince1970
                guard let idempotencyKey else { return try await store.perform(.post(posting, now: now)) }
                return try await store.perform(
                    .post(posting, now: now, key: idempotencyKey, keepUntil: now + Self.idempotencyKeyRetention.seconds)
                )
            }
            metrics.posts.increment()
            span.attributes["handlerkit.revision"] = result.revision
            log(
                .trace, "posted",
                [
                    SignalLogKey.signal: .string(signalID), SignalLogKey.revision: .stringConvertible(result.revision),
                    "handlerkit.deliveries": .stringConvertible(result.deliveries),
                ])
            return result
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    /// Posts `posts` in their order, in one transaction: each as ``post(_:payload:ifUnconsumed:notBefore:idempotencyKey:orderingKey:debounce:)``
    /// posts it (a later post of the same signal makes the next revision; a post whose
    /// ``SignalPost/idempotencyKey`` was taken stores nothing and answers the first post's result),
    /// and either all of them are stored or, when the call throws, none. The results are in the same order. One wake-up goes out
    /// for the whole batch. An empty list stores nothing and returns no result.
    ///
    /// - Throws: the first error any post would throw, before anything is stored (an invalid signal
    ///   id, payload or time names its signal); `.storeBusy` (nothing was posted; safe to post again)
    ///   and the other store errors.
    @discardableResult
    public func post(_ posts: [SignalPost]) async throws(SignalError) -> [PostResult] {
        try checkRunning()
        guard !posts.isEmpty else { return [] }
        let span = InstrumentationSystem.tracer.startSpan("signal post", ofKind: .producer)
        defer { span.end() }
        span.attributes["handlerkit.component"] = component
        span.attributes["handlerkit.posts"] = posts.count
        do throws(SignalError) {
            let context = Self.postContext(of: span)
            let now = Date()
            var postings: [Posting] = []
            postings.reserveCapacity(posts.count)
            for post in posts { postings.append(try post.posting(at: now, context: context)) }
            let program = Self.program(posting: postings, keys: posts.map(\.idempotencyKey), at: now)
            let results = try await storeCall { () throws(SignalError) in try await store.perform(program) }
            metrics.posts.increment(by: Int64(results.count))
            log(
                .trace, "posted in bulk",
                [
                    "handlerkit.posts": .stringConvertible(results.count),
                    "handlerkit.deliveries": .stringConvertible(results.reduce(0) { $0 + $1.deliveries }),
                ])
            return results
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    /// Writes `posts` at once, in order, with `write` (in a transaction of the caller's): each checked
    /// as ``post(_:)`` checks it (nothing is written when one fails), in a producer span whose
    /// context travels with the posts. For a store's own entry point that posts in a transaction
    /// of the application's (`PostgresSignalStore.post(_:in:)`).
    package static func post(
        _ posts: [SignalPost],
        with write: (_ program: StoreProgram<[PostResult]>) async throws(SignalError) -> [PostResult]
    ) async throws(SignalError) -> [PostResult] {
        guard !posts.isEmpty else { return [] }
        let span = postSpan(of: posts)
        defer { span.end() }
        do throws(SignalError) {
            return try await write(try program(of: posts, in: span))
        } catch {
            record(error, in: span)
            throw error
        }
    }

    /// ``post(_:with:)`` for a store whose application transaction is synchronous
    /// (`SQLiteSignalStore.post(_:in:)`, inside a GRDB write).
    package static func postSynchronously(
        _ posts: [SignalPost], with write: (_ program: StoreProgram<[PostResult]>) throws(SignalError) -> [PostResult]
    ) throws(SignalError) -> [PostResult] {
        guard !posts.isEmpty else { return [] }
        let span = postSpan(of: posts)
        defer { span.end() }
        do throws(SignalError) {
            return try write(try program(of: posts, in: span))
        } catch {
            record(error, in: span)
            throw error
        }
    }

    private static func postSpan(of posts: [SignalPost]) -> any Span {
        let span = InstrumentationSystem.tracer.startSpan("signal post", ofKind: .producer)
        span.attributes["handlerkit.posts"] = posts.count
        return span
    }

    /// The bulk post of `posts` at the present time, each checked, their context that of `span`.
    private static func program(
        of posts: [SignalPost], in span: any Span
    ) throws(SignalError) -> StoreProgram<
        [PostResult]
    > {
        let context = postContext(of: span)
        let now = Date()
        var postings: [Posting] = []
        for post in posts { postings.append(try post.posting(at: now, context: context)) }
        return program(posting: postings, keys: posts.map(\.idempotencyKey), at: now)
    }

    /// The program that posts `postings` at `now`, each with its key in `keys` (by index), if any.
    private static func program(
        posting postings: [Posting], keys: [String?], at now: Date
    ) -> StoreProgram<[PostResult]> {
        let time = now.timeIntervalSince1970
        return .posts(postings, now: time, keys: keys, keepUntil: time + idempotencyKeyRetention.seconds)
    }

    private static func record(_ error: SignalError, in span: any Span) {
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error))
    }

    /// Throws ``SignalError/invalidPostKey(signal:kind:reason:)`` for a post's idempotency key that
    /// is empty or longer than a store keeps.
    static func checkKey(_ key: String?, of signalID: String) throws(SignalError) {
        try checkPostKey(key, kind: "idempotency key", of: signalID)
    }

    /// Throws ``SignalError/invalidPostKey(signal:kind:reason:)`` for a post's ordering key that is
    /// empty or longer than a store keeps.
    static func checkOrderingKey(_ key: String?, of signalID: String) throws(SignalError) {
        try checkPostKey(key, kind: "ordering key", of: signalID)
    }

    /// Throws ``SignalError/invalidPostKey(signal:kind:reason:)`` for a post's key of `kind` that is
    /// empty or longer than a store keeps.
    static func checkPostKey(_ key: String?, kind: String, of signalID: String) throws(SignalError) {
        guard let key, key.isEmpty || key.utf8.count > maximumKeyLength else { return }
        throw .invalidPostKey(
            signal: signalID, kind: kind, reason: key.isEmpty ? "is empty" : "is over \(maximumKeyLength) bytes long")
    }

    /// Throws ``SignalError/invalidDeliveryTime(signal:reason:)`` for a post's `notBefore` that is no
    /// time a store can record.
    static func checkTime(_ notBefore: Date?, of signalID: String) throws(SignalError) {
        guard let notBefore, !notBefore.timeIntervalSince1970.isFinite else { return }
        throw .invalidDeliveryTime(
            signal: signalID,
            reason:
                "its notBefore is \(notBefore.timeIntervalSince1970), not a finite time (give one such as Date.now.addingTimeInterval(60))"
        )
    }
}
