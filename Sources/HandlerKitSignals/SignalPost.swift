import Foundation

/// One post of a bulk post (``SignalCenter/post(_:)``): what
/// ``SignalCenter/post(_:payload:ifUnconsumed:notBefore:idempotencyKey:orderingKey:debounce:)`` takes for one signal.
///
/// ```swift
/// let results = try await center.post(thumbnails.map { SignalPost("thumbnail.make", payload: ["photo": $0.id]) })
/// ```
public struct SignalPost: Sendable {
    /// The signal posted.
    public var signal: SignalID
    /// The named values its consumers' handlers receive.
    public var payload: SignalPayload
    /// Whether it is kept for a consumer that registers later when none receives it.
    public var ifUnconsumed: UnconsumedPolicy
    /// The time before which none of its deliveries starts, or `nil` for at once.
    public var notBefore: Date?
    /// A key that makes the post once: a post with a key that an earlier post took within
    /// ``SignalCenter/idempotencyKeyRetention`` stores nothing and its result is that post's.
    public var idempotencyKey: String?
    /// A key whose deliveries a consumer runs one at a time, in the order posted (for example the id
    /// of a conversation), or `nil` for none.
    public var orderingKey: String?
    /// How its deliveries collapse with those of other posts with the same debounce key (``Debounce``),
    /// or `nil` for not at all.
    public var debounce: Debounce?

    public init(
        _ signal: SignalID, payload: SignalPayload = SignalPayload(), ifUnconsumed: UnconsumedPolicy = .report,
        notBefore: Date? = nil, idempotencyKey: String? = nil, orderingKey: String? = nil, debounce: Debounce? = nil
    ) {
        self.signal = signal
        self.payload = payload
        self.ifUnconsumed = ifUnconsumed
        self.notBefore = notBefore
        self.idempotencyKey = idempotencyKey
        self.orderingKey = orderingKey
        self.debounce = debounce
    }
}

extension SignalPost {
    /// The post as a store writes it, made at `now`: its signal id validated, its time and key
    /// checked, its payload encoded with the post's `context`; the errors a post throws before
    /// storing anything.
    func posting(at now: Date, context: PostContext) throws(SignalError) -> Posting {
        let signalID = try signal.validated()
        try SignalCenter.checkTime(notBefore, of: signalID)
        try SignalCenter.checkKey(idempotencyKey, of: signalID)
        try SignalCenter.checkOrderingKey(orderingKey, of: signalID)
        let debouncing = try debounce?.checked(of: signalID)
        var keepUntil: Date?
        if case .keep(let duration) = ifUnconsumed { keepUntil = now.addingTimeInterval(duration.seconds) }
        return Posting(
            signalID: signalID, payload: try payload.encoded(for: signalID, context: context), keepUntil: keepUntil,
            notBefore: notBefore, orderKey: orderingKey, debounce: debouncing)
    }
}
