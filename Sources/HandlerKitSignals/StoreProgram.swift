import Foundation

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
    /// The operation the program makes, for a store that makes it in fewer round trips of its own
    /// (the PostgreSQL store's post, claim and completion: one statement each) with exactly the
    /// program's effects, which the differential tests compare; `nil` for the others.
    package let shortcut: Shortcut?
    /// A read a store may make first, in a read transaction, and the answer when it reads `false`:
    /// then the program would change nothing, and a store that takes a write lock for it (SQLite)
    /// takes none. A store may also run the program without it.
    package let precheck: (read: StoreRead<Bool>, otherwise: Result)?

    package init(
        _ purpose: String, recordedAs record: RecordedText<Result>?,
        marksStartsOf run: String? = nil, unmarked: (@Sendable () -> StoreProgram)? = nil,
        shortcut: Shortcut? = nil, precheck: (read: StoreRead<Bool>, otherwise: Result)? = nil, _ first: Stage
    ) {
        self.purpose = purpose
        self.first = first
        self.record = record
        marksStartsOf = run
        self.unmarked = unmarked
        self.shortcut = shortcut
        self.precheck = precheck
    }

    /// An operation a store may make in one statement of its own instead of the program's stages.
    package enum Shortcut: Sendable {
        /// `SignalStore.complete(_:endingConsumer:thenStarting:)` at `now`; `answer` makes the
        /// program's answer of the outcome.
        case complete(
            ClaimedDelivery, endingConsumer: Bool, next: ClaimedDelivery?, now: Double,
            answer: @Sendable (CompletionOutcome) -> Result)
        /// Completions, then a claim, at `now` (`StoreProgram.completeGroup(_:thenClaiming:now:)`).
        case completeGroup(
            [(delivery: ClaimedDelivery, endingConsumer: Bool)], thenClaiming: ClaimRequest?, now: Double,
            answer: @Sendable (GroupCompletion) -> Result)
        /// `SignalStore.claim(_:)` at `now`.
        case claim(ClaimRequest, now: Double, answer: @Sendable (ClaimedBatch) -> Result)
        /// `SignalStore.post(_:payload:keepUntil:)` at `now`.
        case post(Posting, now: Double, answer: @Sendable (PostResult) -> Result)
        /// Posts in order at `now`, in one transaction (`StoreProgram.posts(_:now:keys:keepUntil:)`):
        /// `post`'s statement for each, or the program's own stages, which a store whose
        /// transactions run side by side runs once it holds the records of the signals posted
        /// locked against other posts.
        case posts([Posting], now: Double, answer: @Sendable ([PostResult]) -> Result)
        /// `SignalStore.settlePromise(_:with:ifValueTypeIn:thenPosting:)` of promise `id` at `now`: the
        /// store reads the promise locked against other settlers, makes what `decide` makes of it,
        /// and its post as the `post` shortcut does.
        case settle(
            String, now: Double, decide: @Sendable (PromiseRecord?) -> PromiseSettling,
            answer: @Sendable (Swift.Result<PromiseRecord?, SignalError>) -> Result)
    }

    /// Whether the program posts signals (`SignalStore.post(_:payload:keepUntil:notBefore:)`, a bulk
    /// post), for a store's tests that stop a post before its commit
    /// (`SignalStoreProbe.Opening.postBeforeCommit`).
    @_spi(SignalStoreDriver) public var isPost: Bool {
        switch shortcut {
        case .post?, .posts?: true
        default: false
        }
    }

    /// What a program does next. Only the core's decisions choose the next stage, and they do not
    /// fail: what a stage changed stays changed until the transaction ends, which a store on
    /// `SignalTables` ends by keeping the tables.
    package enum Stage: Sendable {
        /// Make these steps in order; the next stage follows from the rows each changed.
        case steps([StoreStep], then: @Sendable ([Int]) -> Stage)
        /// Read; the next stage follows from the value read.
        case read(PendingRead)
        /// Change rows and read them back; the next stage follows from what was read.
        case change(PendingChange)
        /// The operation's answer, and the centers to wake once its transaction committed.
        case done(Result, wakeUp: WakeTarget?)
    }

    /// A change that answers the rows it changed (`StoreChange`), with the stage that follows from
    /// them: for a SQL store from the rows its statement returned (which fails when they cannot be
    /// read), for a store on `SignalTables` from the change made on the tables.
    package struct PendingChange: Sendable {
        package let change: StoreChange
        package let afterRows: @Sendable ([SQLRow]) throws(SignalError) -> Stage
        package let inTables: @Sendable (inout SignalTables) -> Stage
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

extension StoreProgram.Stage {
    /// This stage and the ones that follow it, with `next` in place of its answer: what `next`
    /// makes of the answer and the wake-up follows in the same transaction, and may answer a value
    /// of another type (a program made of several).
    package func then<Next: Sendable>(
        _ next: @escaping @Sendable (Result, WakeTarget?) -> StoreProgram<Next>.Stage
    ) -> StoreProgram<Next>.Stage {
        switch self {
        case .steps(let steps, let following):
            return .steps(steps) { counts in following(counts).then(next) }
        case .read(let read):
            return .read(
                StoreProgram<Next>.PendingRead(
                    statement: read.statement,
                    afterRows: { rows throws(SignalError) in try read.afterRows(rows).then(next) },
                    afterTables: { tables in read.afterTables(tables).then(next) }))
        case .change(let change):
            return .change(
                StoreProgram<Next>.PendingChange(
                    change: change.change,
                    afterRows: { rows throws(SignalError) in try change.afterRows(rows).then(next) },
                    inTables: { tables in change.inTables(&tables).then(next) }))
        case .done(let result, let wakeUp):
            return next(result, wakeUp)
        }
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
    /// changed, `rows` runs a statement and answers the rows it returned, `change` is the statement
    /// of a change. Answers the program's answer and whom to wake after the commit.
    package func run(
        step: (StoreStep) throws -> Int, rows: (SQLStatement) throws -> [SQLRow],
        change: (StoreChange) -> SQLStatement
    ) throws -> (Result, WakeTarget?) {
        var stage = first
        while true {
            switch stage {
            case .steps(let steps, let next): stage = next(try steps.map(step))
            case .read(let read): stage = try read.afterRows(try rows(read.statement))
            case .change(let pending): stage = try pending.afterRows(try rows(change(pending.change)))
            case .done(let result, let wakeUp): return (result, wakeUp)
            }
        }
    }

    /// ``run(step:rows:change:)`` for a store whose statements are asynchronous.
    package func run(
        step: (StoreStep) async throws -> Int, rows: (SQLStatement) async throws -> [SQLRow],
        change: (StoreChange) -> SQLStatement
    ) async throws -> (Result, WakeTarget?) {
        var stage = first
        while true {
            switch stage {
            case .steps(let steps, let next):
                var counts: [Int] = []
                for item in steps { counts.append(try await step(item)) }
                stage = next(counts)
            case .read(let read): stage = try read.afterRows(try await rows(read.statement))
            case .change(let pending): stage = try pending.afterRows(try await rows(change(pending.change)))
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
    /// (`SignalStore.insertPromise(_:applying:)`).
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

extension StoreProgram where Result == ClaimedBatch {
    /// Claims the deliveries `request` takes at `now`, oldest first (`StoreChange.claim`), parks as
    /// dead those whose record cannot be read, answers the others in their running order
    /// (`ClaimedDelivery.runningOrder(_:)`) and with `ClaimRequest.startingFirst` marks the first
    /// (with `ClaimRequest.startingAll` every one) started as ``start(_:)`` does
    /// (`SignalStore.claim(_:)`). A run that claimed nothing is read again: when it is no longer
    /// recorded it was taken over, and the answer says so. Run again after
    /// a lost connection as it is: what the lost try claimed, the run's next claim that takes back
    /// lost claims finds.
    package static func claim(_ request: ClaimRequest, now: Double) -> Self {
        let runID = request.runID
        @Sendable func marking(_ claimed: [ClaimedDelivery]) -> Stage {
            let deliveries = ClaimedDelivery.runningOrder(claimed)
            guard request.startingFirst || request.startingAll, let first = deliveries.first else {
                return .done(ClaimedBatch(deliveries: deliveries, firstStart: nil), wakeUp: nil)
            }
            let marked = request.startingAll ? deliveries : [first]
            let marks = marked.map { StoreStep.startAttempt(row: $0.rowID, run: runID, attempt: $0.attempt) }
            return .steps(marks) { counts in
                if counts.allSatisfy({ $0 == 1 }) {
                    return .done(
                        ClaimedBatch(deliveries: deliveries, firstStart: .started, allStarted: request.startingAll),
                        wakeUp: nil)
                }
                // A mark that failed is told of the first; the others are marked by the center.
                if counts.first == 1 {
                    return .done(ClaimedBatch(deliveries: deliveries, firstStart: .started), wakeUp: nil)
                }
                return .reading(StoreReads.isRecorded(runID)) { recorded in
                    .done(
                        ClaimedBatch(
                            deliveries: deliveries, firstStart: StartOutcome(marked: false, runRecorded: recorded)),
                        wakeUp: nil)
                }
            }
        }
        @Sendable func parking(_ claimed: [ClaimedDelivery], _ unreadable: [(row: Int64, reason: String)]) -> Stage {
            if !claimed.isEmpty || !unreadable.isEmpty {
                let parks = unreadable.map { StoreStep.parkUnreadable(row: $0.row, reason: $0.reason) }
                return parks.isEmpty ? marking(claimed) : .steps(parks) { _ in marking(claimed) }
            }
            // Nothing claimed: a run that is no longer recorded was taken over, and says so.
            return .reading(StoreReads.isRecorded(runID)) { recorded in
                .done(ClaimedBatch(deliveries: [], firstStart: recorded ? nil : .runTakenOver), wakeUp: nil)
            }
        }
        return Self(
            "claiming deliveries for run \(runID)", recordedAs: nil,
            marksStartsOf: request.startingFirst || request.startingAll ? runID : nil,
            shortcut: .claim(request, now: now, answer: { $0 }),
            precheck: request.reclaimingLost
                ? nil
                : (StoreReads.anyDue(owner: request.owner, now: now), ClaimedBatch(deliveries: [], firstStart: nil)),
            .change(
                PendingChange(
                    change: .claim(request, now: now),
                    afterRows: { rows throws(SignalError) in
                        var claimed: [ClaimedDelivery] = []
                        var unreadable: [(row: Int64, reason: String)] = []
                        for row in rows {
                            let id: Int64 = try row.value("id", table: "deliveries", key: "?")
                            switch ClaimedDelivery.reading(claimedBy: runID, { try ClaimedColumns(row, id: id) }) {
                            case .run(let delivery): claimed.append(delivery)
                            case .park(let reason): unreadable.append((id, reason))
                            }
                        }
                        return parking(claimed, unreadable)
                    },
                    inTables: { tables in parking(tables.claimDue(request, now: now), []) })))
    }
}

/// A change of a store's tables that answers the rows it changed, made inside the transaction of a
/// `StoreProgram`: its SQL is the SQL stores' (`SignalSQL`), its change of the tables `SignalTables`'.
package enum StoreChange: Sendable, Hashable {
    /// Claims up to `request.limit` deliveries that `request` takes at `now` (due, and with
    /// `ClaimRequest.reclaimingLost` the run's lost claims), oldest first, while the run is recorded:
    /// the next attempt, not started. Answers each with its body and its consumer's mode.
    case claim(ClaimRequest, now: Double)
}

extension ClaimedColumns {
    /// The columns of a claimed delivery as a claim's statement returns them (`StoreChange.claim`);
    /// its body's handler and payload and its consumer's mode are NULL when they are gone.
    init(_ row: SQLRow, id: Int64) throws(SignalError) {
        let key: String = try row.value("delivery_key", table: "deliveries", key: "row \(id)")
        func value<T: SQLDecodable>(_ name: String) throws(SignalError) -> T {
            try row.value(name, table: "deliveries", key: key)
        }
        func body(_ name: String) throws(SignalError) -> Data? {
            guard let stored = row[name], stored != .null else { return nil }
            return Data(try row.value(name, table: "delivery_bodies", key: key) as [UInt8])
        }
        self.init(
            rowID: id, key: key, consumer: try value("consumer_id"), signalID: try value("signal_id"),
            revision: try value("revision"), attempt: try value("attempt"), crashed: (try value("crashed") as Int) != 0,
            handler: try body("handler"), payload: try body("payload"), mode: row.optional("mode"))
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
