import CFixtureTypes
import Foundation
import HandlerKit

/// What the handlers received, in call order.
final class Received: @unchecked Sendable {
    static let shared = Received()
    private let lock = NSLock()
    private var values: [String] = []
    private var everything: HKEverything?

    func record(_ value: String) { lock.withLock { values.append(value) } }

    /// Keeps the last `HKEverything` a handler received.
    func keep(_ value: HKEverything) { lock.withLock { everything = value } }

    /// The last `HKEverything` a handler received.
    func lastEverything() -> HKEverything? { lock.withLock { everything } }

    func take() -> [String] {
        lock.withLock {
            defer { values.removeAll() }
            return values
        }
    }
}

/// Handlers whose parameters are C types of CFixtureTypes.
enum Geometry {
    @handler
    static func label(label: HKLabel) {
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "NULL" }
        Received.shared.record("label \(text(label.text)) \(text(label.notes.0)) \(text(label.notes.1)) \(label.size)")
    }

    @handler
    static func move(point: HKPoint, by offset: Double = 0) {
        Received.shared.record("move \(point.x + offset) \(point.y + offset) \(point.tag)")
    }

    @handler
    static func inspect(everything: HKEverything, color: HKColor?, mode: HKMode, line: CFixtureTypes.HKLine) {
        Received.shared.keep(everything)
        Received.shared.record("inspect \(everything.i64) \(color?.rawValue ?? 0) \(mode.rawValue) \(line.state.rawValue)")
    }

    @handler
    static func collect(points: [HKPoint], state: HKState) {
        Received.shared.record("collect \(points.count) \(state.rawValue)")
    }
}
