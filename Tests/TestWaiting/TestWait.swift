import Foundation
import Testing

/// How the tests wait for an event: they poll for it and fail only past a generous bound, saying
/// what they waited for and what they saw. A bound tells a hang from progress; it is not a speed
/// requirement, so every bound is multiplied by `HANDLERKIT_TEST_TIME_SCALE` (default 1) for a
/// slow or loaded machine, e.g. `HANDLERKIT_TEST_TIME_SCALE=4 swift test`.
public enum TestWait {
    /// The factor every bound is multiplied by: `HANDLERKIT_TEST_TIME_SCALE`, at least 1.
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["HANDLERKIT_TEST_TIME_SCALE"], let value = Double(text),
            value.isFinite, value >= 1
        else { return 1 }
        return value
    }()

    /// `base` multiplied by ``scale``.
    public static func bound(_ base: Duration) -> Duration { base * scale }

    /// `base` in seconds multiplied by ``scale``, for APIs that take a `TimeInterval`.
    public static func seconds(_ base: Duration) -> TimeInterval {
        let scaled = bound(base).components
        return Double(scaled.seconds) + Double(scaled.attoseconds) / 1e18
    }

    /// A wait that passed its bound without the event.
    public struct Timeout: Error, CustomStringConvertible {
        public var description: String
    }

    /// Returns once `event` holds; checks it every `interval`. Past `limit` (scaled, a minute by
    /// default) throws ``Timeout`` naming `what` and, when given, what `seen` reports at that moment.
    public static func until(
        _ what: String, limit: Duration = .seconds(60), every interval: Duration = .milliseconds(20),
        seen: () -> String = { "" }, _ event: () async throws -> Bool
    ) async throws {
        let bound = bound(limit)
        let start = ContinuousClock.now
        while try await !event() {
            let waited = start.duration(to: .now)
            if waited >= bound {
                let saw = seen()
                throw Timeout(
                    description: "waited \(waited) for \(what), in vain" + (saw.isEmpty ? "" : "; saw: \(saw)")
                        + " (HANDLERKIT_TEST_TIME_SCALE=\(scale) scales the bound \(limit))")
            }
            try await Task.sleep(for: interval)
        }
    }

    /// ``until(_:limit:every:seen:_:)`` for a test that goes on past the bound to clean up (ending
    /// the processes it started) and check what happened: a wait in vain is recorded as an issue
    /// saying what was seen. Returns whether the event came.
    @discardableResult
    public static func expect(
        _ what: String, limit: Duration = .seconds(60), every interval: Duration = .milliseconds(20),
        seen: () -> String = { "" }, sourceLocation: SourceLocation = #_sourceLocation, _ event: () async throws -> Bool
    ) async -> Bool {
        do {
            try await until(what, limit: limit, every: interval, seen: seen, event)
            return true
        } catch {
            Issue.record(error, sourceLocation: sourceLocation)
            return false
        }
    }
}
