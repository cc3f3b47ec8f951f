import HandlerKit

/// A value a handler takes only at call time: it is not `Codable`, so it cannot be bound, but a
/// typed call passes it as it is.
final class Connection: Sendable {
    let name: String

    init(name: String) {
        self.name = name
    }
}

enum Session {
    /// A static member with a parameter's name, used as that parameter's default value.
    static let retries = 1

    /// A call-time-only parameter with an argument label; a default that names a static member
    /// called like the parameter (the typed call gives its parameter another internal name).
    @handler
    static func send(text: String, over connection: Connection, retries: Int = retries) {
        Recorder.shared.record("send \(text) over \(connection.name) retries \(retries)")
    }
}
