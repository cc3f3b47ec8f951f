import ChatKit
import HandlerKit

// Every form of `@handler` declaration, each recording what it was called with in `Journal`.

/// Static methods; a defaulted parameter whose default is a member of the type; an optional one.
enum Carbons {
    static let defaultLimit = 10

    @handler
    static func enabled(account: Account, limit: Int = defaultLimit, note: String? = nil) {
        Journal.shared.record("Carbons.enabled account=\(account.name) limit=\(limit) note=\(note ?? "nil")")
    }
}

/// A value bound at creation (so `Codable`), and how the instance handler finds its object.
struct Account: Codable, Sendable {
    var name: String

    var omemo: OMEMO { OMEMO(owner: name) }
}

/// A class method that throws.
class Service {
    @handler
    class func restart(reason: String, attempts: [Int] = [1, 2]) throws {
        if reason.isEmpty { throw ClientError(message: "empty reason") }
        Journal.shared.record("Service.restart reason=\(reason) attempts=\(attempts)")
    }
}

/// The object an instance handler runs on.
struct OMEMO {
    var owner: String
}

/// An instance method in an extension: `async throws`, optional and defaulted parameters, a
/// parameter with an argument label different from its name.
extension OMEMO {
    @handler(instance: "account.omemo")
    func bundleFetched(account: Account, for jid: String, success: Bool,
                       errorReason: String? = nil, rid: String = "rid-0") async throws {
        await Task.yield()
        if !success, errorReason == "fail" { throw ClientError(message: "fetch failed") }
        Journal.shared.record("OMEMO.bundleFetched owner=\(owner) jid=\(jid) success=\(success) errorReason=\(errorReason ?? "nil") rid=\(rid)")
    }
}

/// File scope with a stable id, and without parameters.
@handler(id: "cleanup.v1")
func cleanUp(reason: String) {
    Journal.shared.record("cleanup.v1 reason=\(reason)")
}

@handler
func ping() {
    Journal.shared.record("ping")
}

/// A nested type, extended; a parameter of a type nested in it.
enum Outer {
    enum Inner {
        enum Kind: String, Codable, Sendable {
            case small, large
        }
    }
}

extension Outer.Inner {
    @handler
    static func convert(_ kind: Kind, values: [String: Int]? = nil) async throws {
        let total = values?.values.reduce(0, +) ?? 0
        Journal.shared.record("Outer.Inner.convert kind=\(kind.rawValue) total=\(total)")
    }
}

/// Handlers under `#if`: the inactive branch names a type that does not exist, so the generated code
/// compiles only if it keeps the conditions.
enum Conditional {
    #if os(Linux) || os(macOS)
    @handler
    static func active(value: Int) {
        Journal.shared.record("Conditional.active value=\(value)")
    }
    #else
    @handler
    static func active(value: TypeThatDoesNotExist) {}
    #endif

    #if HANDLERKIT_FIXTURE_NEVER_DEFINED
    @handler
    static func inactive(value: AnotherMissingType) {}
    #endif
}

/// An invalidation target for `Carbons.enabled` handlers: takes the shared bound `account`.
enum Session {
    @handler
    static func ended(account: Account, why: String?) {
        Journal.shared.record("Session.ended account=\(account.name) why=\(why ?? "nil")")
    }
}
