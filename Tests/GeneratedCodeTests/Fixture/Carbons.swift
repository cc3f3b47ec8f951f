import HandlerKit

/// A static handler whose parameter types and default are members of its enclosing type.
enum Carbons {
    /// A nested type used as a parameter type (resolved in the generated extension).
    struct IQ: Codable, Sendable, Equatable {
        var id: String
    }

    /// A static member used unqualified as a default value.
    static let defaultLimit = 10

    @handler
    static func enabled(account: Account, iqNode: IQ, limit: Int = defaultLimit, note: String? = nil) {
        Recorder.shared.record("enabled \(account.id) \(iqNode.id) \(limit) \(note ?? "nil")")
    }
}

/// A value handlers take; bound at creation (so `Codable`).
struct Account: Codable, Sendable, Equatable {
    var id: String

    /// How the instance handler finds its object.
    var omemo: OMEMO { OMEMO(owner: id) }
}

/// A class with a `class func` handler.
class Service {
    @handler
    class func restart(reason: String, attempts: [Int] = [1, 2]) throws {
        if reason.isEmpty { throw FixtureError(reason: "empty") }
        Recorder.shared.record("restart \(reason) \(attempts)")
    }
}
