import Foundation
import HandlerKit

// The demo module's `@handler` functions. The HandlerKit build plugin finds them and generates
// `HandlerTable.handlerkit_demo` (their registration) and per handler a reference, such as
// `Greeter.greetHandler(name:greeting:)`, that creates a `Handler` with type-checked bound values, and a
// typed call, such as `Greeter.callGreetHandler(_:name:greeting:)`, with type-checked call-time values.

/// A static handler with a defaulted parameter.
enum Greeter {
    @handler
    static func greet(name: String, greeting: String = "Hello") {
        DemoLog.shared.ran("Greeter.greet", "\(greeting), \(name)!")
    }
}

/// A user account: a bound value (so `Codable`), and how the instance handler finds its mailbox.
struct Account: Codable, Sendable {
    var name: String

    /// The mailbox the `Mailbox.deliver` handler runs on (its `instance:` expression).
    var mailbox: Mailbox { Mailbox(owner: name) }
}

/// An instance handler: the object is found from the arguments with `account.mailbox`.
struct Mailbox {
    let owner: String

    @handler(instance: "account.mailbox")
    func deliver(account: Account, subject: String, urgent: Bool = false) {
        let flag = urgent ? " (urgent)" : ""
        DemoLog.shared.ran("Mailbox.deliver", "put \"\(subject)\"\(flag) into the mailbox of \(owner)")
    }
}

/// An `async throws` handler.
enum Downloads {
    @handler
    static func fetch(url: String, attempt: Int) async throws {
        try await Task.sleep(nanoseconds: 20_000_000)
        DemoLog.shared.ran("Downloads.fetch", "fetched \(url) (attempt \(attempt), async)")
    }
}

/// A handler with an invalidation handler: `cancelled` runs once when the `progress` handler is
/// invalidated, with the same bound values (`file`).
enum Upload {
    @handler
    static func progress(file: String, percent: Int) {
        DemoLog.shared.ran("Upload.progress", "\(file) is \(percent)% uploaded")
    }

    @handler
    static func cancelled(file: String, reason: String?) {
        DemoLog.shared.ran("Upload.cancelled", "upload of \(file) cancelled: \(reason ?? "no reason given")")
    }
}
