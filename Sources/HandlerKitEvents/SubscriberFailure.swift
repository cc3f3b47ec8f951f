import Foundation
import HandlerKit

/// An error a subscriber threw while an event was delivered to it.
public struct SubscriberFailure: Error, Sendable, CustomStringConvertible {
    /// The event's name.
    public let eventName: String
    /// The subscriber that threw.
    public let subscription: Subscription
    /// What it threw.
    public let error: any Error

    @usableFromInline
    init(eventName: String, subscription: Subscription, error: any Error) {
        self.eventName = eventName
        self.subscription = subscription
        self.error = error
    }

    public var description: String {
        "event '\(eventName)': \(subscription) threw: \(error)"
    }
}

/// Where errors thrown by subscribers go when nobody waits for them: every fire-and-forget
/// `send(_:)`, foreground or background. (`sendAndWait(_:)` returns them instead.)
///
/// The default writes one line per error to standard error. Subscribers keep being called after
/// one throws.
public enum EventErrorHook {
    private static let current = Locked<@Sendable (SubscriberFailure) -> Void>(EventErrorHook.standardError)

    /// The function that receives each failure. It may run on any thread, concurrently.
    public static var handler: @Sendable (SubscriberFailure) -> Void {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// Writes the failure as one line to standard error.
    @Sendable
    public static func standardError(_ failure: SubscriberFailure) {
        FileHandle.standardError.write(Data("HandlerKitEvents: \(failure)\n".utf8))
    }

    @usableFromInline
    static func report(_ failure: SubscriberFailure) {
        let hook = handler
        hook(failure)
    }
}
