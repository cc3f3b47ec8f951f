import Foundation
import HandlerKit
import HandlerKitEvents

/// A type with a class-level event, as a client declares one.
enum Chat {
    /// Sent with the text of each message that arrives.
    static let messageArrived = Event<Chat.Type, String>("messageArrived", key: "Chat.messageArrived")
}

/// The probe's `@handler` functions, registered through the HandlerKit build plugin like a client's.
enum Probe {
    /// Takes the event's `data` and `eventName` next to two bound values.
    @handler
    static func record(label: String, times: Int, data: String, eventName: String) {
        say("ran Probe.record label=\(label) times=\(times) data=\(data) eventName=\(eventName)")
    }

    /// Takes the whole event object.
    @handler
    static func inspect(label: String, event: SentEvent<Chat.Type, String>) async {
        say("ran Probe.inspect label=\(label) sender=\(event.sender) data=\(event.data) (background)")
    }
}

/// One line to standard output, unbuffered.
func say(_ text: String) {
    FileHandle.standardOutput.write(Data("\(text)\n".utf8))
}
