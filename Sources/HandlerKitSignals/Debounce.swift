import Foundation

/// How a post is debounced: posts with the same key to a consumer collapse into one delivery, which
/// runs once the posts stop for the window (or the maximum delay after the first one).
///
/// ```swift
/// // Ten pushes in a second refresh the inbox once, a second after the last of them.
/// try await center.post("inbox.refresh", payload: ["reason": reason], debounce: Debounce(key: account.id, window: .seconds(1)))
/// ```
///
/// For each consumer of the signal, a post with a debounce finds the consumer's delivery with the
/// same key that waits for its first attempt (pending, never claimed). When there is one, the post
/// makes no delivery: it gives that one its payload (the last post's payload wins) and moves its due
/// time to the window after this post (or after the post's `notBefore`), but never past the maximum
/// delay after the first post it collapsed. When there is none — no post with the key yet, or its
/// delivery was claimed, is running, waits for a retry or is dead — the post makes a new delivery,
/// due the window after it. The delivery keeps the key and revision of its first post.
///
/// The collapsed delivery is stored like any other, so it survives every process; a post after a
/// restart still finds it. A debounce is what a post takes: its values are read by the center only.
public struct Debounce: Sendable, Hashable {
    /// The key whose posts collapse (for example the id of the account or the file to refresh):
    /// 1 to 256 bytes.
    let key: String
    /// How long the posts of a key must stop before their delivery runs.
    let window: Duration
    /// The longest a delivery waits after the first post it collapsed, however often posts come
    /// (at least the window), or `nil` for no limit.
    let maximumDelay: Duration?

    /// A debounce of the posts with `key` (for example the id of the account or the file to refresh,
    /// 1 to 256 bytes): their delivery runs once they stop for `window` (above zero, at most a year),
    /// but at most `maximumDelay` (no shorter than `window`; `nil` for no limit) after the first.
    public init(key: String, window: Duration, maximumDelay: Duration? = nil) {
        self.key = key
        self.window = window
        self.maximumDelay = maximumDelay
    }
}

extension Debounce {
    /// The longest window or delay a debounce takes: a year.
    static let longest = Duration.seconds(365 * 86_400)

    /// The debounce as a post stores it, checked: its key 1 to 256 bytes, its window above zero and
    /// at most a year, its maximum delay no shorter than its window.
    func checked(of signalID: String) throws(SignalError) -> Posting.Debouncing {
        try SignalCenter.checkPostKey(key, kind: "debounce key", of: signalID)
        guard window > .zero, window <= Self.longest else {
            throw .invalidDeliveryTime(
                signal: signalID,
                reason:
                    "its debounce window \(window) is not above zero and at most a year (give one such as .seconds(1))")
        }
        if let maximumDelay, !(maximumDelay >= window && maximumDelay <= Self.longest) {
            throw .invalidDeliveryTime(
                signal: signalID,
                reason:
                    "its debounce's maximum delay \(maximumDelay) is shorter than its window \(window) or over a year (give at least the window, or nil for no limit)"
            )
        }
        return Posting.Debouncing(key: key, window: window.seconds, maximumDelay: maximumDelay?.seconds)
    }
}
