import Foundation
@_spi(HandlerKitGenerated) import HandlerKit

/// Records what handlers did, from any thread.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []

    func record(_ event: String) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    func count(prefix: String) -> Int { all.filter { $0.hasPrefix(prefix) }.count }
}

/// Not Codable: can only be passed at call time (like Monal's `xmpp* account`).
final class Account: Sendable {
    let jid: String
    init(jid: String) { self.jid = jid }
}

struct Point: Codable, Equatable, Sendable {
    var x: Double
    var y: Double
    var label: String?
}

struct HandlerFailure: Error, Equatable {
    let code: Int
}

/// Every scalar and container type a handler can bind, for exact round trips.
struct AllValues: Codable, Equatable, Sendable {
    var bool: Bool
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var double: Double
    var float: Float
    var string: String
    var data: Data
    var date: Date
    var uuid: UUID
    var url: URL
    var array: [Int]
    var dictionary: [String: Double]
    var optional: Int?
    var missing: String?
    var point: Point
}

/// A registry with hand-written shims, as the generator would write them.
func makeRegistry(_ recorder: Recorder) throws -> HandlerRegistry {
    let registry = HandlerRegistry()
    try registry.register(
        HandlerTable(
            module: "Fixtures",
            handlers: [
                HandlerDescriptor(
                    id: "Mail.fetched",
                    parameters: [
                        .required("account", Account.self), .required("success", Bool.self),
                        .optional("errorReason", String.self), .optional("limit", Int.self),
                        .required("rid", String.self),
                    ],
                    invoke: { arguments in
                        let account: Account = try arguments.required("account")
                        let success: Bool = try arguments.required("success")
                        let errorReason: String? = try arguments.optional("errorReason")
                        let limit: Int = try arguments.value("limit", default: 10)
                        let rid: String = try arguments.required("rid")
                        recorder.record("fetched \(account.jid) \(success) \(errorReason ?? "nil") \(limit) \(rid)")
                    }
                ),
                HandlerDescriptor(
                    id: "Mail.cancelled",
                    parameters: [.required("done", Bool.self), .optional("rid", String.self)],
                    invoke: { arguments in
                        let done: Bool = try arguments.required("done")
                        let rid: String? = try arguments.optional("rid")
                        recorder.record("cancelled \(done) \(rid ?? "nil")")
                    }
                ),
                HandlerDescriptor(
                    id: "Counter.add",
                    parameters: [.required("amount", Int.self), .optional("note", String.self)],
                    invoke: { arguments in
                        let amount: Int = try arguments.required("amount")
                        recorder.record("add \(amount)")
                    }
                ),
                HandlerDescriptor(
                    id: "Uploads.finished",
                    parameters: [.required("id", Int.self)],
                    invokeAsync: { arguments in
                        let id: Int = try arguments.required("id")
                        try await Task.sleep(nanoseconds: 1_000)
                        recorder.record("finished \(id)")
                    }
                ),
                HandlerDescriptor(
                    id: "Uploads.aborted",
                    parameters: [.optional("reason", String.self)],
                    invokeAsync: { arguments in
                        let reason: String? = try arguments.optional("reason")
                        recorder.record("aborted \(reason ?? "nil")")
                    }
                ),
                HandlerDescriptor(
                    id: "Failing.run",
                    parameters: [.required("code", Int.self)],
                    invoke: { arguments in throw HandlerFailure(code: try arguments.required("code")) }
                ),
                HandlerDescriptor(
                    id: "Values.all",
                    parameters: [.required("values", AllValues.self)],
                    invoke: { arguments in
                        let values: AllValues = try arguments.required("values")
                        recorder.record("values \(values.int64)")
                    }
                ),
                HandlerDescriptor(
                    id: "Geometry.move",
                    parameters: [.required("point", Point.self), .optional("by", Double.self)],
                    invoke: { arguments in
                        let point: Point = try arguments.required("point")
                        let by: Double = try arguments.value("by", default: 1)
                        recorder.record("move \(point.x + by) \(point.y + by)")
                    }
                ),
                HandlerDescriptor(
                    id: "Chain.then",
                    parameters: [.required("next", Handler.self), .optional("fallback", Handler.self)],
                    invoke: { arguments in
                        let next: Handler = try arguments.required("next")
                        recorder.record("chain \(next.id)")
                        try next.callSynchronously(["amount": 7])
                    }
                ),
            ]))
    return registry
}
