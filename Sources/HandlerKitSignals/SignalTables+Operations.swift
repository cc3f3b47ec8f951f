import Foundation

/// The operations of a store on its tables, one for each requirement of ``SignalStore`` and
/// ``SignalRunLiveness``: a store calls the one of the same name inside its exclusive section (its
/// lock, or its transaction), saves the tables when they changed, and then wakes the centers the
/// answer names.
extension SignalTables {
    /// What an operation on the tables answers, and whom the store wakes once it saved what the
    /// operation changed: the tables wake no one themselves.
    @_spi(SignalStoreDriver)
    public struct Answer<Value> {
        /// What the store's requirement returns.
        @_spi(SignalStoreDriver) public var value: Value
        /// The centers to wake once the change is saved; `nil`: none.
        @_spi(SignalStoreDriver) public var wakeUp: WakeTarget?

        package init(_ value: Value, wakeUp: WakeTarget? = nil) {
            self.value = value
            self.wakeUp = wakeUp
        }
    }

    // MARK: Plans and runs

    /// Makes each step of `plan` in order; answers how many records each changed.
    package mutating func apply(_ plan: StorePlan) -> Answer<[Int]> {
        let counts = run(plan)
        return Answer(counts, wakeUp: plan.wakeUp(counts: counts))
    }

    /// Runs `program` on the tables (`SignalStore.perform(_:)`): its steps, its reads, its answer.
    @_spi(SignalStoreDriver)
    public mutating func perform<Result>(_ program: StoreProgram<Result>) -> Answer<Result> {
        var stage = program.first
        while true {
            switch stage {
            case .steps(let steps, let next): stage = next(run(steps))
            case .read(let read): stage = read.afterTables(self)
            case .change(let change): stage = change.inTables(&self)
            case .done(let result, let wakeUp): return Answer(result, wakeUp: wakeUp)
            }
        }
    }

    /// Records run `runID` of `component`, started now by process `processID`, and applies `plan`
    /// (`SignalRunLiveness.beginRun(_:component:applying:)`, once the store holds the run's proof of life).
    @_spi(SignalStoreDriver)
    public mutating func beginRun(
        _ runID: String, component: String, applying plan: StorePlan,
        processID: Int = Int(ProcessInfo.processInfo.processIdentifier)
    ) -> Answer<[Int]> {
        runs[runID] = component
        runStarts[runID] = Date()
        runProcesses[runID] = processID
        return apply(plan)
    }

    /// Applies `plan`, then forgets run `runID` (`SignalRunLiveness.endRun(_:component:applying:)`;
    /// the store releases the run's proof of life afterwards).
    @_spi(SignalStoreDriver)
    public mutating func endRun(_ runID: String, component: String, applying plan: StorePlan) -> Answer<[Int]> {
        let answer = apply(plan)
        runs[runID] = nil
        runStarts[runID] = nil
        runProcesses[runID] = nil
        suspended.remove(runID)
        return answer
    }

    /// Marks run `runID` suspended (gone, for ``takeOver(_:of:applying:isAlive:)``) and applies `plan`
    /// (`SignalRunLiveness.suspendRun(_:component:applying:)`; the store releases the run's proof of
    /// life afterwards).
    @_spi(SignalStoreDriver)
    public mutating func suspendRun(_ runID: String, component: String, applying plan: StorePlan) -> Answer<[Int]> {
        suspended.insert(runID)
        return apply(plan)
    }

    /// Resumes run `runID` (`SignalRunLiveness.resumeRun(_:component:applying:)`, once the store holds
    /// the run's proof of life again): applies `plan` and answers `true` while the run is recorded;
    /// `false`, applying nothing, when it was taken over.
    @_spi(SignalStoreDriver)
    public mutating func resumeRun(_ runID: String, component: String, applying plan: StorePlan) -> Answer<Bool> {
        suspended.remove(runID)
        guard runs[runID] != nil else { return Answer(false) }
        let applied = apply(plan)
        return Answer(true, wakeUp: applied.wakeUp)
    }

    /// Takes `run` over (`SignalRunLiveness.takeOver(_:of:applying:)`): applies `plan` and answers the
    /// counts, unless `isAlive` (the store's proof of life, tested while it holds what keeps other
    /// takers out) or the plan's taker was itself taken over (its record is gone): `nil` then,
    /// changing nothing. A suspended run counts as gone whatever `isAlive` says.
    @_spi(SignalStoreDriver)
    public mutating func takeOver(
        _ run: String, of component: String, applying plan: StorePlan, isAlive: Bool
    ) -> Answer<[Int]?> {
        guard !isAlive || suspended.contains(run) else { return Answer(nil) }
        if let taker = plan.taker, runs[taker] == nil { return Answer(nil) }
        suspended.remove(run)
        let applied = apply(plan)
        return Answer(applied.value, wakeUp: applied.wakeUp)
    }

    /// Whether `run` is recorded and not suspended: all the proof of life a store has whose runs live
    /// only as long as the store object (``InMemorySignalStore``). Other stores prove it themselves.
    @_spi(SignalStoreDriver)
    public func isRecordedAndRunning(_ run: String) -> Bool {
        runs[run] != nil && !suspended.contains(run)
    }

    /// A recorded run, for the inspection of a store (`InspectableSignalStore.runRecords()`).
    @_spi(SignalStoreDriver)
    public struct RecordedRun: Sendable, Hashable {
        @_spi(SignalStoreDriver) public var runID: String
        @_spi(SignalStoreDriver) public var component: String
        /// When it began (``beginRun(_:component:applying:processID:)``), and in which process.
        @_spi(SignalStoreDriver) public var startedAt: Date
        @_spi(SignalStoreDriver) public var processID: Int
        /// Whether it is suspended (``suspendRun(_:component:applying:)``).
        @_spi(SignalStoreDriver) public var isSuspended: Bool
    }

    /// The runs recorded, oldest first.
    @_spi(SignalStoreDriver)
    public var recordedRuns: [RecordedRun] {
        runs.map { run, component in
            RecordedRun(
                runID: run, component: component, startedAt: runStarts[run] ?? Date(timeIntervalSince1970: 0),
                processID: runProcesses[run] ?? 0, isSuspended: suspended.contains(run))
        }
        .sorted { ($0.startedAt, $0.runID) < ($1.startedAt, $1.runID) }
    }

    // MARK: Deliveries

    /// Answers one of the core's reads (`SignalStore.read(_:)`).
    @_spi(SignalStoreDriver)
    public func read<Value: Sendable>(_ read: StoreRead<Value>) -> Value {
        read.tables(self)
    }
}

@_spi(SignalStoreDriver)
extension SignalTables.Answer: Sendable where Value: Sendable {}
