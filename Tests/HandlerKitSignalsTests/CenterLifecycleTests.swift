@_spi(SignalStoreDriver) import HandlerKitSignals
import Testing

/// The center's lifecycle machine driven event by event, in every phase, without a store or a
/// clock: what it answers, and the state it is in afterwards.
@Suite("Signals: the center's lifecycle machine")
struct CenterLifecycleTests {
    typealias Phase = CenterLifecycle.Phase

    /// An instant to count grace periods from: the machine only compares the instants it is given.
    let start = ContinuousClock.now
    let running = DeliveryKey("consumer/1")

    /// A machine of run `run-1` in `phase`, with the handler of delivery row 1 running (started
    /// while active).
    func lifecycle(in phase: Phase, deliversAutomatically: Bool = true) -> CenterLifecycle {
        var machine = CenterLifecycle(
            component: "app", runID: "run-1", takeover: TakeoverReport(),
            deliversAutomatically: deliversAutomatically)
        _ = machine.handlerStarting(row: 1, key: running, generation: 0)
        switch phase {
        case .active: break
        case .suspending: _ = machine.suspendRequested(graceEnds: start + .seconds(5))
        case .suspended:
            _ = machine.suspendRequested(graceEnds: start + .seconds(5))
            _ = machine.drainingEnded()
        case .stopped: _ = machine.stopped()
        }
        return machine
    }

    let suspendedError = SignalError.suspended(component: "app", runID: "run-1")
    let stoppedError = SignalError.centerStopped(component: "app", runID: "run-1")

    @Test func aNewMachineIsActiveAtGenerationZero() {
        let machine = CenterLifecycle(
            component: "app", runID: "run-1", takeover: TakeoverReport(), deliversAutomatically: true)
        #expect(machine.phase == .active)
        #expect(machine.generation == 0)
        #expect(machine.storeCalls == 0)
        #expect(machine.running.isEmpty)
        #expect(machine.isDrained)
        #expect(machine.allows(0))
        #expect(!machine.allows(1))
    }

    // MARK: Store calls and passes

    @Test(arguments: Phase.allCases)
    func aStoreCallIsRefusedOnlyWhileSuspendingOrSuspended(phase: Phase) {
        var machine = lifecycle(in: phase)
        let answer = machine.storeCallRequested()
        switch phase {
        case .active, .stopped:
            #expect(answer == .proceed(runID: "run-1"))
            #expect(machine.storeCalls == 1)
            machine.storeCallEnded()
            #expect(machine.storeCalls == 0)
        case .suspending, .suspended:
            #expect(answer == .refuse(suspendedError))
            #expect(machine.storeCalls == 0)
        }
        #expect(machine.phase == phase)
    }

    @Test(arguments: Phase.allCases)
    func theEndOfAStoreCallThatWasNotCountedChangesNothing(phase: Phase) {
        var machine = lifecycle(in: phase)
        machine.storeCallEnded()
        #expect(machine.storeCalls == 0)
        #expect(machine.phase == phase)
    }

    @Test(arguments: Phase.allCases)
    func deliverDueRunsAPassOfTheCurrentGenerationUnlessSuspended(phase: Phase) {
        let machine = lifecycle(in: phase)
        switch phase {
        case .active, .stopped: #expect(machine.deliverDueRequested() == .pass(generation: 0))
        case .suspending, .suspended: #expect(machine.deliverDueRequested() == .refuse(suspendedError))
        }
    }

    @Test(arguments: Phase.allCases)
    func onlyAnActiveCentersCurrentPassMayClaim(phase: Phase) {
        var machine = lifecycle(in: phase)
        let generation = machine.generation
        let runID = machine.passCallRequested(generation: generation)
        if phase == .active {
            #expect(runID == "run-1")
            #expect(machine.storeCalls == 1)
        } else {
            #expect(runID == nil)
            #expect(machine.storeCalls == 0)
        }
    }

    @Test func aPassOfAnEarlierGenerationClaimsAndStartsNothing() {
        var machine = lifecycle(in: .suspended)
        _ = machine.resumedSameRun(stopping: false)
        #expect(machine.phase == .active)
        #expect(machine.generation == 1)
        let earlierClaim = machine.passCallRequested(generation: 0)
        #expect(earlierClaim == nil)
        let earlierStart = machine.handlerStarting(row: 2, key: DeliveryKey("consumer/2"), generation: 0)
        #expect(!earlierStart)
        #expect(machine.running[2] == nil)
        #expect(machine.storeCalls == 0)
        let currentClaim = machine.passCallRequested(generation: 1)
        #expect(currentClaim == "run-1")
    }

    // MARK: Handlers

    @Test(arguments: Phase.allCases)
    func aHandlerStartsOnlyWhileActive(phase: Phase) {
        var machine = lifecycle(in: phase)
        let starts = machine.handlerStarting(row: 2, key: DeliveryKey("consumer/2"), generation: machine.generation)
        #expect(starts == (phase == .active))
        #expect((machine.running[2] != nil) == (phase == .active))
    }

    @Test(arguments: Phase.allCases)
    func aHandlerSettlingInAnyPhaseStopsCountingAsRunning(phase: Phase) {
        var machine = lifecycle(in: phase)
        #expect(machine.running == [1: running])
        machine.handlerSettled(row: 1)
        #expect(machine.running.isEmpty)
        #expect(machine.phase == phase)
        // Late: settled twice, or a row that never ran.
        machine.handlerSettled(row: 1)
        machine.handlerSettled(row: 99)
        #expect(machine.running.isEmpty)
    }

    // MARK: The gate

    @Test(arguments: Phase.allCases)
    func aSettlementWaitsOnlyOnceSuspendedOrPastTheGrace(phase: Phase) {
        var machine = lifecycle(in: phase)
        let withinGrace = machine.settlementArrives(at: start + .seconds(1))
        switch phase {
        case .active, .suspending, .stopped:
            #expect(withinGrace == .proceed)
            #expect(machine.storeCalls == 1)
        case .suspended:
            #expect(withinGrace == .wait)
            #expect(machine.storeCalls == 0)
        }
        let pastGrace = machine.settlementArrives(at: start + .seconds(5))
        #expect(pastGrace == (phase == .suspending || phase == .suspended ? .wait : .proceed))
    }

    @Test(arguments: Phase.allCases)
    func aTaskAwaitingAPromiseWaitsWhileSuspendingOrSuspended(phase: Phase) {
        let machine = lifecycle(in: phase)
        let answer = machine.promiseCallArrives()
        #expect(answer == (phase == .suspending || phase == .suspended ? .wait : .proceed))
        #expect(machine.storeCalls == 0)
    }

    // MARK: Suspending

    @Test(arguments: Phase.allCases)
    func aSuspensionDrainsOnlyAnActiveCenter(phase: Phase) {
        var machine = lifecycle(in: phase)
        let generation = machine.generation
        let answer = machine.suspendRequested(graceEnds: start + .seconds(9))
        switch phase {
        case .active:
            #expect(
                answer
                    == .drain(
                        .init(runID: "run-1", runningAtStart: 1, endedGeneration: 0, graceEnds: start + .seconds(9))))
            #expect(machine.phase == .suspending)
            #expect(machine.generation == 1)
            #expect(machine.graceEnds == start + .seconds(9))
        case .suspending, .suspended:
            #expect(answer == .alreadySuspended(runID: "run-1"))
            #expect(machine.phase == phase)
            #expect(machine.generation == generation)
        case .stopped:
            #expect(answer == .refuse(stoppedError))
            #expect(machine.phase == .stopped)
        }
    }

    @Test(arguments: Phase.allCases)
    func theEndOfTheDrainingSuspendsAndNamesTheHandlersStillRunning(phase: Phase) {
        var machine = lifecycle(in: phase)
        let keeping = machine.drainingEnded()
        if phase == .suspending {
            #expect(keeping == [1: running])
            #expect(machine.phase == .suspended)
        } else {
            #expect(keeping.isEmpty)
            #expect(machine.phase == phase)
        }
    }

    @Test(arguments: Phase.allCases)
    func theRunConsumersAreKeptOnlyOnceSuspended(phase: Phase) {
        var machine = lifecycle(in: phase)
        machine.suspensionDone(runConsumers: [ConsumerID("c")])
        #expect(machine.runConsumers == (phase == .suspended ? [ConsumerID("c")] : []))
    }

    @Test(arguments: Phase.allCases, [true, false])
    func aFailedDrainingMakesTheCenterActiveAsBefore(phase: Phase, automatic: Bool) {
        var machine = lifecycle(in: phase, deliversAutomatically: automatic)
        let answer = machine.drainingFailed()
        switch phase {
        case .suspending, .suspended:
            #expect(answer == .init(openGate: true, startDelivering: automatic))
            #expect(machine.phase == .active)
            #expect(machine.graceEnds == nil)
            #expect(machine.allows(1))
        case .active, .stopped:
            #expect(answer == .init(openGate: false, startDelivering: false))
            #expect(machine.phase == phase)
        }
    }

    // MARK: Resuming

    @Test(arguments: Phase.allCases)
    func aResumeTakesBackOnlyASuspendedRun(phase: Phase) {
        let machine = lifecycle(in: phase)
        switch phase {
        case .suspended: #expect(machine.resumeRequested() == .resume(runID: "run-1", keeping: [1]))
        case .active, .suspending: #expect(machine.resumeRequested() == .notSuspended(runID: "run-1"))
        case .stopped: #expect(machine.resumeRequested() == .refuse(stoppedError))
        }
    }

    @Test(arguments: Phase.allCases, [true, false])
    func aRunResumedDeliversAgainUnlessStopping(phase: Phase, stopping: Bool) {
        var machine = lifecycle(in: phase)
        machine.suspensionDone(runConsumers: [ConsumerID("c")])
        let answer = machine.resumedSameRun(stopping: stopping)
        if phase == .suspending || phase == .suspended {
            #expect(answer == .init(openGate: true, startDelivering: !stopping))
            #expect(machine.phase == .active)
            #expect(machine.runConsumers.isEmpty)
            #expect(machine.runID == "run-1")
        } else {
            #expect(answer == .init(openGate: false, startDelivering: false))
            #expect(machine.phase == phase)
        }
    }

    @Test(arguments: Phase.allCases)
    func aRunTakenOverWhileSuspendedCarriesOnAsANewRun(phase: Phase) {
        var machine = lifecycle(in: phase)
        var report = TakeoverReport()
        report.deadRuns = ["run-1"]
        let answer = machine.resumedAsNewRun("run-2", takeover: report)
        if phase == .suspending || phase == .suspended {
            #expect(answer == .init(openGate: true, startDelivering: true))
            #expect(machine.phase == .active)
            #expect(machine.runID == "run-2")
            #expect(machine.takeover == report)
            let newRunCall = machine.storeCallRequested()
            #expect(newRunCall == .proceed(runID: "run-2"))
        } else {
            #expect(answer == .init(openGate: false, startDelivering: false))
            #expect(machine.runID == "run-1")
            #expect(machine.takeover == TakeoverReport())
        }
    }

    // MARK: Stopping

    @Test(arguments: Phase.allCases)
    func aStopResumesASuspendedRunFirst(phase: Phase) {
        let machine = lifecycle(in: phase)
        switch phase {
        case .active: #expect(machine.stopRequested() == .stop)
        case .suspending, .suspended:
            #expect(machine.stopRequested() == .resumeFirst(runID: "run-1", keeping: [1]))
        case .stopped: #expect(machine.stopRequested() == .alreadyStopped)
        }
    }

    @Test(arguments: Phase.allCases)
    func aGracefulStopDrainsOnlyAnActiveCenter(phase: Phase) {
        var machine = lifecycle(in: phase)
        let answer = machine.gracefulStopRequested(graceEnds: start + .seconds(3))
        switch phase {
        case .active:
            #expect(
                answer
                    == .drain(
                        .init(runID: "run-1", runningAtStart: 1, endedGeneration: 0, graceEnds: start + .seconds(3))))
            #expect(answer.draining?.endedGeneration == 0)
            #expect(machine.phase == .suspending)
        case .suspending, .suspended:
            #expect(answer == .stopAtOnce(runID: "run-1", wasStopped: false))
            #expect(answer.draining == nil)
        case .stopped: #expect(answer == .stopAtOnce(runID: "run-1", wasStopped: true))
        }
    }

    @Test(arguments: Phase.allCases)
    func stoppingEndsDeliveryOnceAndForGood(phase: Phase) {
        var machine = lifecycle(in: phase)
        let firstStop = machine.stopped()
        #expect(firstStop == (phase == .stopped ? .none : .endDelivery))
        #expect(machine.phase == .stopped)
        #expect(machine.graceEnds == nil)
        #expect(!machine.allows(machine.generation))
        let secondStop = machine.stopped()
        #expect(secondStop == .none)
        // A handler that settles after the stop is no longer counted; the gate is open.
        machine.handlerSettled(row: 1)
        #expect(machine.running.isEmpty)
        let lateSettlement = machine.settlementArrives(at: start + .seconds(60))
        #expect(lateSettlement == .proceed)
    }

    // MARK: Takeover while active

    @Test(arguments: Phase.allCases)
    func aRunFoundTakenOverIsReportedOnce(phase: Phase) {
        var machine = lifecycle(in: phase)
        let otherRun = machine.passFoundTakenOver("run-0")
        #expect(!otherRun)
        #expect(!machine.isTakenOver)
        let firstFinding = machine.passFoundTakenOver("run-1")
        #expect(firstFinding)
        #expect(machine.isTakenOver)
        let secondFinding = machine.passFoundTakenOver("run-1")
        #expect(!secondFinding)
    }

    @Test func onePassReplacesARunTakenOverAndTheNextCarriesOn() {
        var machine = lifecycle(in: .active)
        let notTakenOver = machine.replacingRunRequested("run-1")
        #expect(!notTakenOver)
        _ = machine.passFoundTakenOver("run-1")
        let firstReplacing = machine.replacingRunRequested("run-1")
        #expect(firstReplacing)
        #expect(machine.replacingRun)
        let secondReplacing = machine.replacingRunRequested("run-1")
        #expect(!secondReplacing)
        machine.carriedOnAsNewRun("run-2", takeover: TakeoverReport())
        machine.replacingRunEnded()
        #expect(!machine.isTakenOver)
        #expect(!machine.replacingRun)
        #expect(machine.runID == "run-2")
        let newRunClaim = machine.passCallRequested(generation: 0)
        #expect(newRunClaim == "run-2")
    }

    @Test func aFailedReplacementLeavesTheRunToTheNextPass() {
        var machine = lifecycle(in: .active)
        _ = machine.passFoundTakenOver("run-1")
        let firstReplacing = machine.replacingRunRequested("run-1")
        #expect(firstReplacing)
        machine.replacingRunEnded()
        #expect(machine.isTakenOver)
        let nextReplacing = machine.replacingRunRequested("run-1")
        #expect(nextReplacing)
    }

    // MARK: A whole suspension

    @Test func aSuspensionAndResumeGoThroughEveryPhase() {
        var machine = lifecycle(in: .active)
        let suspension = machine.suspendRequested(graceEnds: start + .seconds(1))
        #expect(suspension.draining?.runningAtStart == 1)
        #expect(!machine.isDrained)
        machine.handlerSettled(row: 1)
        let settlement = machine.settlementArrives(at: start)
        #expect(settlement == .proceed)
        #expect(!machine.isDrained)
        machine.storeCallEnded()
        #expect(machine.isDrained)
        let stillRunning = machine.drainingEnded()
        #expect(stillRunning.isEmpty)
        machine.suspensionDone(runConsumers: [])
        #expect(machine.phase == .suspended)
        #expect(machine.resumeRequested() == .resume(runID: "run-1", keeping: []))
        let resumed = machine.resumedSameRun(stopping: false)
        #expect(resumed == .init(openGate: true, startDelivering: true))
        #expect(machine.phase == .active)
        #expect(machine.deliverDueRequested() == .pass(generation: 1))
        #expect(machine.stopRequested() == .stop)
        let stop = machine.stopped()
        #expect(stop == .endDelivery)
        #expect(machine.resumeRequested() == .refuse(stoppedError))
    }
}
