@_spi(SignalStoreDriver) import HandlerKitSignals
import Testing

/// What a center's claims ask of the store: only after a claim or a settlement failed do they take
/// back the run's claims, once, leaving alone those the center still holds.
@Suite("Signals: the claims a center holds")
struct HeldClaimsTests {
    func delivery(_ row: Int64) -> ClaimedDelivery {
        ClaimedDelivery(
            rowID: row, key: DeliveryKey("c/\(row)"), consumerID: ConsumerID("c"), signalID: "s", revision: Int(row),
            handler: [], payload: [], attempt: 1, runID: "run", mode: .everyRevision, previousAttemptCrashed: false)
    }

    @Test func aClaimTakesNothingBackUntilSomethingFailed() {
        var claims = HeldClaims()
        claims.claimed([delivery(1), delivery(2)])
        #expect(
            claims.request(runID: "run", owner: "run", limit: 8, startingFirst: true)
                == ClaimRequest(runID: "run", limit: 8, startingFirst: true))
        #expect(claims.rows == [1, 2])
    }

    @Test func afterAFailureTheNextClaimTakesBackWhatIsNotHeldOnce() {
        var claims = HeldClaims()
        claims.claimed([delivery(1), delivery(2), delivery(3)])
        claims.settled(delivery(2))
        claims.failed()
        #expect(
            claims.request(runID: "run", owner: "run", limit: 8, startingFirst: true)
                == ClaimRequest(runID: "run", limit: 8, startingFirst: true, inProgress: [1, 3], reclaimingLost: true))
        // Asked once: the claim after it takes nothing back unless it failed.
        #expect(!claims.request(runID: "run", owner: "run", limit: 8, startingFirst: true).reclaimingLost)
        claims.failed()
        #expect(claims.request(runID: "run", owner: "run", limit: 8, startingFirst: false).reclaimingLost)
    }

    @Test func afterAFailureTheRunsClaimAndItsQueuesClaimEachTakeBackTheirOwnOnce() {
        var claims = HeldClaims()
        claims.claimed([delivery(1)])
        claims.failed()
        let queue = claims.request(runID: "run", owner: "queue:app", limit: 4, startingFirst: true)
        #expect(queue.reclaimingLost && queue.owner == "queue:app" && queue.inProgress == [1])
        #expect(claims.request(runID: "run", owner: "run", limit: 8, startingFirst: true).reclaimingLost)
        #expect(!claims.request(runID: "run", owner: "queue:app", limit: 4, startingFirst: true).reclaimingLost)
        #expect(!claims.request(runID: "run", owner: "run", limit: 8, startingFirst: true).reclaimingLost)
    }

    @Test func aNewRunHoldsNothingAndTakesNothingBack() {
        var claims = HeldClaims()
        claims.claimed([delivery(1)])
        claims.failed()
        claims.runReplaced()
        #expect(claims.rows.isEmpty && !claims.mayBeLost)
        #expect(!claims.request(runID: "run-2", owner: "run-2", limit: 8, startingFirst: true).reclaimingLost)
    }
}
