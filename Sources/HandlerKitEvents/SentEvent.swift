/// What a subscriber receives when an event is sent: who sent it, its data and the event's name
/// (AFFEvent's event object; `Notification` in Foundation).
///
/// A handler subscriber receives the same values as the call-time arguments `event` (this value),
/// `data`, `sender` and `eventName`, and takes those it declares.
public struct SentEvent<Sender: Sendable, Payload: Sendable>: Sendable {
    /// The object that sent an instance-level event, or the owning type of a class-level event.
    public let sender: Sender
    /// The value given to `send(_:)` (`()` for events without data).
    public let data: Payload
    /// The event's name, e.g. `started`.
    public let eventName: String

    public init(sender: Sender, data: Payload, eventName: String) {
        self.sender = sender
        self.data = data
        self.eventName = eventName
    }
}
