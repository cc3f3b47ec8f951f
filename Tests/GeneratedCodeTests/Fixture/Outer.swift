import HandlerKit

/// Nested types: handlers in an extension of a dotted type, with a nested type as parameter type.
enum Outer {
    enum Inner {
        enum Kind: String, Codable, Sendable {
            case small, large
        }
    }
}

extension Outer.Inner {
    /// Unlabeled parameter; optional collection.
    @handler
    static func convert(_ kind: Kind, values: [String: Int]? = nil) throws {
        let total = values?.values.reduce(0, +) ?? 0
        Recorder.shared.record("convert \(kind.rawValue) \(total)")
    }

    /// An async static handler.
    @handler
    static func wait(milliseconds: Int) async {
        try? await Task.sleep(nanoseconds: UInt64(milliseconds) * 1_000_000)
        Recorder.shared.record("wait \(milliseconds)")
    }
}
