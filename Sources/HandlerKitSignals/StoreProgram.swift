/// An operation of the core on a store, made in one transaction: steps that change rows and reads,
/// each chosen by the core from what the ones before answered, then the operation's answer and whom to
/// wake after the commit.
///
/// A store runs it with `SignalStore.perform(_:)`. A store outside this package never looks inside:
/// it runs the program on its tables with `SignalTables.perform(_:)` in one exclusive section of its
/// own, so a rule the core adds or changes changes none of the store's code. The SQLite and
/// PostgreSQL stores of this package run each step's SQL and each read's statement.
@_spi(SignalStoreDriver)
public struct StoreProgram<Result: Sendable>: Sendable {
    /// What the operation does, for messages: a store names it in its errors ("starting delivery …").
    @_spi(SignalStoreDriver) public let purpose: String
    /// The first stage.
    package let first: Stage
    /// How the answer is recorded with the operation's id, so that a try after a lost connection
    /// whose first try committed answers what it answered (`nil`: running the program again is
    /// harmless, and answers what the first try would have).
    package let record: RecordedText<Result>?
    /// The run whose claimed attempts the program marks started, if it does: the SQLite store checks
    /// that run's lock file first, as every mark does.
    package let marksStartsOf: String?
    /// The program without its marks, for a store whose check before a mark failed for a reason of
    /// its own (the SQLite store's run lock file) where the rest must stand; `nil`: the program fails.
    package let unmarked: (@Sendable () -> StoreProgram)?
    /// The operation the program makes, for a store that makes it in one statement of its own (the
    /// PostgreSQL store's completion: one round trip) with exactly the program's effects, which the
    /// differential tests compare; `nil` for the others.
    package let shortcut: Shortcut?

    package init(
        _ purpose: String, recordedAs record: RecordedText<Result>?,
        marksStartsOf run: String? = nil, unmarked: (@Sendable () -> StoreProgram)? = nil,
        shortcut: Shortcut? = nil, _ first: Stage
    ) {
        self.purpose = purpose
        self.first = first
        self.record = record
        marksStartsOf = run
        self.unmarked = unmarked
        self.shortcut = shortcut
    }

    /// An operation a store may make in one statement of its own instead of the program's stages.
    package enum Shortcut: Sendable {
        /// `SignalStore.complete(_:endingConsumer:thenStarting:)` at `now`; `answer` makes the
        /// program's answer of the outcome.
        case complete(
            ClaimedDelivery, endingConsumer: Bool, next: ClaimedDelivery?, now: Double,
            answer: @Sendable (CompletionOutcome) -> Result)
    }

    /// What a program does next. Only the core's decisions choose the next stage, and they do not
    /// fail: what a stage changed stays changed until the transaction ends, which a store on
    /// `SignalTables` ends by keeping the tables.
    package enum Stage: Sendable {
        /// Make these steps in order; the next stage follows from the rows each changed.
        case steps([StoreStep], then: @Sendable ([Int]) -> Stage)
        /// Read; the next stage follows from the value read.
        case read(PendingRead)
        /// The operation's answer, and the centers to wake once its transaction committed.
        case done(Result, wakeUp: WakeTarget?)
    }

    /// A read inside a program's transaction, with the stage that follows from its value: for a SQL
    /// store from its statement's rows (which fails when they cannot be read), for a store on
    /// `SignalTables` from the tables.
    package struct PendingRead: Sendable {
        package let statement: SQLStatement
        package let afterRows: @Sendable ([SQLRow]) throws(SignalError) -> Stage
        package let afterTables: @Sendable (SignalTables) -> Stage
    }
}

extension StoreProgram.Stage {
    /// Reads `read` in the program's transaction, then goes on with `next` of its value.
    package static func reading<Value: Sendable>(
        _ read: StoreRead<Value>, then next: @escaping @Sendable (Value) -> Self
    ) -> Self {
        .read(
            StoreProgram.PendingRead(
                statement: read.sql.statement,
                afterRows: { rows throws(SignalError) in next(try read.sql.decode(rows)) },
                afterTables: { tables in next(read.tables(tables)) }))
    }
}

/// How an answer is written as text and read back (`StoreProgram.record`).
package struct RecordedText<Value>: Sendable {
    package let encode: @Sendable (Value) -> String
    /// `nil` when the text is not one `encode` writes.
    package let decode: @Sendable (String) -> Value?
}

extension RecordedText where Value == [Int] {
    /// Numbers, such as the rows each step of a plan changed: decimals separated by spaces.
    package static var numbers: Self {
        Self(
            encode: { $0.map(String.init).joined(separator: " ") },
            decode: { text in
                let numbers = text.split(separator: " ").compactMap { Int($0) }
                return numbers.count == text.split(separator: " ").count ? numbers : nil
            })
    }
}

extension RecordedText where Value == Bool {
    /// A yes or no: `1` or `0`.
    package static var flag: Self {
        Self(encode: { $0 ? "1" : "0" }, decode: { text in text == "1" ? true : text == "0" ? false : nil })
    }
}

// MARK: Running a program

extension StoreProgram {
    /// Runs the program in the caller's transaction: `step` makes a step and answers the rows it
    /// changed, `rows` runs a read's statement. Answers the program's answer and whom to wake after
    /// the commit.
    package func run(
        step: (StoreStep) throws -> Int, rows: (SQLStatement) throws -> [SQLRow]
    ) throws -> (Result, WakeTarget?) {
        var stage = first
        while true {
            switch stage {
            case .steps(let steps, let next): stage = next(try steps.map(step))
            case .read(let read): stage = try read.afterRows(try rows(read.statement))
            case .done(let result, let wakeUp): return (result, wakeUp)
            }
        }
    }

    /// ``run(step:rows:)`` for a store whose statements are asynchronous.
    package func run(
        step: (StoreStep) async throws -> Int, rows: (SQLStatement) async throws -> [SQLRow]
    ) async throws -> (Result, WakeTarget?) {
        var stage = first
        while true {
            switch stage {
            case .steps(let steps, let next):
                var counts: [Int] = []
                for item in steps { counts.append(try await step(item)) }
                stage = next(counts)
            case .read(let read): stage = try read.afterRows(try await rows(read.statement))
            case .done(let result, let wakeUp): return (result, wakeUp)
            }
        }
    }
}

// MARK: The core's programs

extension StorePlan {
    /// The plan as a program: its steps, answering the rows each changed and waking whom
    /// ``wakeUp(counts:)`` names.
    package var program: StoreProgram<[Int]> {
        StoreProgram(
            purpose, recordedAs: .numbers, .steps(steps) { counts in .done(counts, wakeUp: wakeUp(counts: counts)) })
    }
}

extension StoreProgram where Result == Bool {
    /// Stores `promise` (not settled) and applies `plan` (registering its fallback consumer, if any)
    /// in the same transaction; `false`, changing nothing, when a promise with its id exists
    /// (`PromiseStore.insertPromise(_:applying:)`).
    package static func insertPromise(_ promise: PromiseRecord, applying plan: StorePlan) -> Self {
        Self(
            "making promise '\(promise.id)'", recordedAs: .flag,
            .steps([.insertPromise(promise)]) { counts in
                guard counts == [1] else { return .done(false, wakeUp: nil) }
                return .steps(plan.steps) { counts in .done(true, wakeUp: plan.wakeUp(counts: counts)) }
            })
    }
}

extension StoreProgram where Result == CompletionOutcome {
    /// Completes a claimed delivery while its run and attempt still hold its claim: removes it and
    /// its body and records its completion at `now`; with `endingConsumer`, removes its consumer and
    /// then its signal's record when no consumer uses it and it is not kept. With `next`, then marks
    /// it started as ``start(_:)`` does, whether or not `delivery` completed
    /// (`SignalStore.complete(_:endingConsumer:thenStarting:)`). Recorded: a try after a lost
    /// connection answers what the first one did.
    package static func complete(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, thenStarting next: ClaimedDelivery?, now: Double
    ) -> Self {
        @Sendable func marking(completed: Bool) -> Stage {
            guard let next else { return .done(CompletionOutcome(completed: completed, next: nil), wakeUp: nil) }
            return .steps([.startAttempt(row: next.rowID, run: next.runID, attempt: next.attempt)]) { counts in
                if counts == [1] { return .done(CompletionOutcome(completed: completed, next: .started), wakeUp: nil) }
                return .reading(StoreReads.isRecorded(next.runID)) { recorded in
                    .done(
                        CompletionOutcome(
                            completed: completed, next: StartOutcome(marked: false, runRecorded: recorded)),
                        wakeUp: nil)
                }
            }
        }
        let row = delivery.rowID
        var unmarked: (@Sendable () -> Self)?
        if next != nil {
            unmarked = { @Sendable in complete(delivery, endingConsumer: endingConsumer, thenStarting: nil, now: now) }
        }
        return Self(
            "completing delivery \(delivery.key)", recordedAs: .completion, marksStartsOf: next?.runID,
            unmarked: unmarked,
            shortcut: .complete(delivery, endingConsumer: endingConsumer, next: next, now: now, answer: { $0 }),
            .steps([.removeClaimed(row: row, run: delivery.runID, attempt: delivery.attempt)]) { counts in
                guard counts == [1] else { return marking(completed: false) }
                return .steps([.removeBody(row: row), .recordCompletion(delivery, now: now)]) { _ in
                    guard endingConsumer else { return marking(completed: true) }
                    return .steps([.removeConsumer(delivery.consumerID.rawValue)]) { counts in
                        guard counts.first ?? 0 > 0 else { return marking(completed: true) }
                        return .steps([.removeSignalIfUnused(delivery.signalID, now: now)]) { _ in
                            marking(completed: true)
                        }
                    }
                }
            })
    }
}

extension RecordedText where Value == CompletionOutcome {
    /// Whether it completed, then what marking the next delivery found: `1 -` (completed, no next
    /// delivery), `0 started`, `1 claimLost`, `1 runTakenOver`, …
    package static var completion: Self {
        Self(
            encode: { outcome in
                let next =
                    switch outcome.next {
                    case nil: "-"
                    case .started?: "started"
                    case .claimLost?: "claimLost"
                    case .runTakenOver?: "runTakenOver"
                    }
                return "\(outcome.completed ? 1 : 0) \(next)"
            },
            decode: { text in
                let parts = text.split(separator: " ")
                guard parts.count == 2, parts[0] == "0" || parts[0] == "1" else { return nil }
                let next: StartOutcome?
                switch parts[1] {
                case "-": next = nil
                case "started": next = .started
                case "claimLost": next = .claimLost
                case "runTakenOver": next = .runTakenOver
                default: return nil
                }
                return CompletionOutcome(completed: parts[0] == "1", next: next)
            })
    }
}

extension StoreProgram where Result == StartOutcome {
    /// Marks a claimed delivery's attempt started while its run is recorded and it is still claimed
    /// by that run with the same attempt (`SignalStore.start(_:)`); else tells why not. Marking again
    /// is harmless, so a try after a lost connection runs it again.
    package static func start(_ delivery: ClaimedDelivery) -> Self {
        let run = delivery.runID
        return Self(
            "starting delivery \(delivery.key)", recordedAs: nil, marksStartsOf: run,
            .steps([.startAttempt(row: delivery.rowID, run: run, attempt: delivery.attempt)]) { counts in
                if counts == [1] { return .done(.started, wakeUp: nil) }
                return .reading(StoreReads.isRecorded(run)) { recorded in
                    .done(StartOutcome(marked: false, runRecorded: recorded), wakeUp: nil)
                }
            })
    }
}
