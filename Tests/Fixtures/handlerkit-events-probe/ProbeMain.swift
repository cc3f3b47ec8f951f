import Foundation
import HandlerKit
import HandlerKitEvents

/// `handlerkit-events-probe`: the second process of HandlerKitEventsTests (a client built with the
/// HandlerKit plugin).
///
///     handlerkit-events-probe save FILE      subscribe handlers with bound values to Chat.messageArrived, save them to FILE
///     handlerkit-events-probe send FILE      restore the subscriptions from FILE, send the event twice, save again
///
/// Exit status 0 when it did that, 1 on an error (printed).
@main
enum ProbeMain {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            guard arguments.count == 2 else { throw ProbeFailure("usage: handlerkit-events-probe save|send FILE") }
            try HandlerRegistry.shared.register(.handlerkit_events_probe)
            let archive = SubscriptionArchive()
            try archive.add(Chat.messageArrived)
            let file = URL(fileURLWithPath: arguments[1])
            switch arguments[0] {
            case "save": try save(archive, file)
            case "send": try await send(archive, file)
            default: throw ProbeFailure("unknown command \(arguments[0])")
            }
        } catch {
            say("error: \(error)")
            exit(1)
        }
    }

    static func save(_ archive: SubscriptionArchive, _ file: URL) throws {
        try Chat.messageArrived.subscribe(Probe.recordHandler(label: "first", times: 1))
        try Chat.messageArrived.subscribe(Probe.recordHandler(label: "once", times: 2), once: true)
        Chat.messageArrived.subscribe(named: "not saved") { _ in say("a closure ran") }
        try Chat.messageArrived.lock(Chat.messageArrived.subscribe(Probe.recordHandler(label: "locked", times: 3)))
        try Chat.messageArrived.subscribe(Probe.inspectHandler(label: "fourth"), inBackground: true)
        try archive.save(to: file)
        say("saved \(Chat.messageArrived.subscriptions.count - 1) handler subscriptions")
    }

    static func send(_ archive: SubscriptionArchive, _ file: URL) async throws {
        let report = try archive.restore(from: file)
        say("restore: \(report)")
        for subscription in Chat.messageArrived.subscriptions { say("subscription: \(subscription)") }
        for text in ["hello", "again"] {
            say("send \(text)")
            for failure in await Chat.messageArrived.sendAndWait(text) { say("failure: \(failure)") }
        }
        try archive.save(to: file)
        say("saved again")
    }
}

struct ProbeFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
