import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The check of how a claimed delivery whose attempt failed is given back, as the core decides it.
extension ConformanceChecks {
    static let releaseChecks: [SignalStoreConformance.Check] = [
        .init(
            name:
                "a failed attempt released with a retry time is pending from then, without one it is dead; its attempt counts",
            body: releasingAFailedAttempt)
    ]

    static func releasingAFailedAttempt(_ c: ConformanceContext) async throws {
        let center = try await c.center("app")
        _ = try await center.register(try c.handler("Sink.receive"), for: "retried")
        _ = try await center.register(try c.handler("Sink.receive"), for: "parked")
        _ = try await center.post("retried", payload: ["item": 1])
        _ = try await center.post("parked", payload: ["item": 2])
        let claimed = try await c.store.claim(for: center.runID, limit: 10)
        try c.expectEqual(claimed.map(\.signalID), ["retried", "parked"], "claimed deliveries")
        for delivery in claimed { try c.expectEqual(try await c.store.start(delivery), .started, "starting") }

        try c.expect(
            try await c.store.release(claimed[0], reason: "try again", retryAt: Date().addingTimeInterval(-1)),
            "released for a retry")
        try c.expect(try await c.store.release(claimed[1], reason: "give up", retryAt: nil), "released as dead")
        try c.expect(
            try await c.store.release(claimed[1], reason: "again", retryAt: nil) == false,
            "a released delivery is not released again")
        var statistics = try await c.store.statistics()
        try c.expect(
            statistics.pendingDeliveries == 1 && statistics.claimedDeliveries == 0 && statistics.deadDeliveries == 1,
            "one pending and one dead, found \(statistics)")
        let dead = try await c.store.deadDeliveries(of: "app")
        try c.expectEqual(dead.map(\.signalID), ["parked"], "the dead delivery")
        try c.expectEqual(dead.map(\.reason), ["give up"], "its reason")
        try c.expectEqual(dead.map(\.attempts), [1], "its attempts")

        // The retried one is due again (its retry time passed), its attempt counted and not crashed.
        let again = try await c.store.claim(for: center.runID, limit: 10)
        try c.expectEqual(again.map(\.signalID), ["retried"], "claimed again")
        try c.expectEqual(again.map(\.attempt), [2], "its attempt")
        try c.expectEqual(again.map(\.previousAttemptCrashed), [false], "its previous attempt crashed")
        try c.expect(
            try await c.store.release(again[0], reason: "later", retryAt: Date().addingTimeInterval(3_600)),
            "released for a later retry")
        try c.expectEqual(try await c.store.claim(for: center.runID, limit: 10), [], "claimed before the retry time")
        statistics = try await c.store.statistics()
        try c.expect(
            statistics.pendingDeliveries == 1 && statistics.deadDeliveries == 1,
            "one pending and one dead, found \(statistics)")
        try await center.stop()
    }
}
