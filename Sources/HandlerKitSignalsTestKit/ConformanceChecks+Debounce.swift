import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection

/// The checks of debounced posts (`Debounce`).
extension ConformanceChecks {
    static let debounceChecks: [SignalStoreConformance.Check] = [
        .init(
            name:
                "posts with one debounce key collapse into the delivery that waits, which runs once with the last payload",
            body: debouncedPostsCollapse),
        .init(
            name:
                "a debounced delivery waits its window after the last post but never past its maximum delay, and a claimed one takes no more posts",
            body: debouncedDueTimes),
    ]

    static func debouncedPostsCollapse(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        _ = try await center.register(try c.handler("Sink.receive"), for: "refresh", delivery: .everyRevision)
        let quick = Debounce(key: "inbox", window: .milliseconds(200))
        for item in 1...3 { _ = try await center.post("refresh", payload: ["item": item], debounce: quick) }
        // Another key, in a bulk post with a post that is not debounced.
        _ = try await center.post([
            SignalPost("refresh", payload: ["item": 10], debounce: Debounce(key: "outbox", window: .milliseconds(200))),
            SignalPost("refresh", payload: ["item": 20]),
            SignalPost("refresh", payload: ["item": 11], debounce: Debounce(key: "outbox", window: .milliseconds(200))),
        ])
        try c.expectEqual(try await c.store.statistics().pendingDeliveries, 3, "deliveries made by six posts")
        // Nothing claims until the center delivers, so the windows may pass meanwhile on a slow store:
        // when they are due is checked apart, with windows of an hour.
        var completed = 0
        let deadline = ContinuousClock.now + .seconds(120)
        while completed < 3, ContinuousClock.now < deadline {
            completed += try await center.deliverDue()
            if completed < 3 { try await Task.sleep(for: .milliseconds(20)) }
        }
        if completed != 3 {
            let left = try await c.store.statistics()
            let status = try await c.store.runStatus(of: center.runID)
            throw ConformanceFailure(
                check: c.check,
                message:
                    "deliveries completed once their windows passed: expected 3, found \(completed); the store holds \(left), "
                    + "the run's next due time is \(status.nextDue.map { "\($0.timeIntervalSinceNow) s from now" } ?? "none")",
                line: #line)
        }
        let received = c.recorder.all.map { "\($0.item ?? 0)@\($0.revision)" }.sorted()
        // Each collapsed delivery keeps its first post's revision and runs with its last post's payload.
        try c.expectEqual(received, ["11@4", "20@5", "3@1"], "what the handlers received (item@revision)")

        // Once the delivery of a key ran, the next post of the key makes a new one.
        _ = try await center.post("refresh", payload: ["item": 4], debounce: quick)
        try c.expectEqual(try await c.store.statistics().pendingDeliveries, 1, "deliveries after the next post")
        try await center.stop()
    }

    static func debouncedDueTimes(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        _ = try await center.register(try c.handler("Sink.receive"), for: "sync", delivery: .everyRevision)
        // A window of an hour, at most an hour after the first post: later posts keep its due time.
        let capped = Debounce(key: "capped", window: .seconds(3_600), maximumDelay: .seconds(3_600))
        let before = Date()
        _ = try await center.post("sync", payload: ["item": 1], debounce: capped)
        let first = try c.require(try await c.store.runStatus(of: center.runID).nextDue, "due after the first post")
        try c.expect(
            first.timeIntervalSince(before) > 3_590 && first.timeIntervalSince(before) < 3_700,
            "due an hour after the first post, found \(first.timeIntervalSince(before)) s")
        try await Task.sleep(for: .milliseconds(50))
        _ = try await center.post("sync", payload: ["item": 2], debounce: capped)
        try c.expectEqual(
            try await c.store.runStatus(of: center.runID).nextDue, first, "due time after a second post (capped)")
        if let inspectable = c.store as? any InspectableSignalStore {
            let records = try await inspectable.deliveries(matching: DeliveryFilter(signalID: "sync"))
            try c.expectEqual(records.map(\.debounceKey), ["capped"], "the debounce keys an operator sees")
        }

        // A claimed delivery takes no more posts: the next post of its key makes a new delivery.
        let soon = Debounce(key: "claimed", window: .milliseconds(1))
        _ = try await center.post("sync", payload: ["item": 3], debounce: soon)
        try await Task.sleep(for: .milliseconds(20))
        let claimed = try await c.store.claim(for: center.runID, limit: 10)
        try c.expectEqual(claimed.map(\.revision), [3], "the revisions claimed (the debounced one whose window passed)")
        _ = try await center.post("sync", payload: ["item": 4], debounce: soon)
        try c.expectEqual(
            try await c.store.statistics().pendingDeliveries, 2, "pending deliveries after a post of a claimed key")

        // Without a maximum delay, each post moves the due time to a window after it.
        let other = try await c.center("other")
        _ = try await other.register(try c.handler("Sink.receive"), for: "slide", delivery: .everyRevision)
        let sliding = Debounce(key: "sliding", window: .seconds(7_200))
        _ = try await other.post("slide", payload: ["item": 5], debounce: sliding)
        let slidFirst = try c.require(try await c.store.runStatus(of: other.runID).nextDue, "due after a first post")
        try await Task.sleep(for: .milliseconds(50))
        _ = try await other.post("slide", payload: ["item": 6], debounce: sliding)
        let slidSecond = try c.require(try await c.store.runStatus(of: other.runID).nextDue, "due after a second post")
        try c.expect(
            slidSecond.timeIntervalSince(slidFirst) >= 0.04,
            "the second post moved the due time by the time between the posts, found \(slidSecond.timeIntervalSince(slidFirst)) s"
        )
        try await other.stop()
        try await center.stop()
    }
}
