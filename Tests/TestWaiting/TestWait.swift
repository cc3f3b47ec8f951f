import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the tests wait for an event: they poll for it and fail only past a generous bound, saying
/// what they waited for and what they saw. A bound tells a hang from progress; it is not a speed
/// requirement, so every bound is multiplied by ``scale``: `HANDLERKIT_TEST_TIME_SCALE` (e.g.
/// `HANDLERKIT_TEST_TIME_SCALE=4 swift test`), or more while the machine is loaded.
public enum TestWait {
    /// `HANDLERKIT_TEST_TIME_SCALE`, at least 1 (1 when unset).
    public static let configuredScale: Double = {
        guard let text = ProcessInfo.processInfo.environment["HANDLERKIT_TEST_TIME_SCALE"], let value = Double(text),
            value.isFinite, value >= 1
        else { return 1 }
        return value
    }()

    /// The factor every bound is multiplied by, now: ``configuredScale``, or the machine's load
    /// (its one-minute load average per processor) when that is higher. On a machine whose other
    /// work takes most of the processors, everything a test waits for takes that much longer.
    public static var scale: Double { max(configuredScale, loadPerProcessor) }

    /// The one-minute load average divided by the number of active processors, at least 1.
    static var loadPerProcessor: Double {
        var loads = [0.0, 0.0, 0.0]
        guard getloadavg(&loads, 1) == 1, loads[0].isFinite else { return 1 }
        return max(1, loads[0] / Double(max(1, ProcessInfo.processInfo.activeProcessorCount)))
    }

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
        let start = ContinuousClock.now
        while try await !event() {
            let waited = start.duration(to: .now)
            // The load is looked at only once the configured bound has passed.
            if waited >= limit * configuredScale, case let scale = scale, waited >= limit * scale {
                let saw = seen()
                throw Timeout(
                    description: "waited \(waited) for \(what), in vain" + (saw.isEmpty ? "" : "; saw: \(saw)")
                        + " (the bound \(limit), scaled by \(scale): HANDLERKIT_TEST_TIME_SCALE=\(configuredScale)"
                        + " or the machine's load per processor)")
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
