// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import Logging
import NIOCore
import PostgresNIO
import SignalSQL

extension PostgresSignalStore {
    // MARK: Runs

    @_spi(SignalStoreDriver)
    public func beginRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) {
        if readsOnly { throw .storeReadOnly(path: location, operation: "starting run \(runID)") }
        try await prepare()
        let keeper = try await RunKeeper.start(store: self, runID: runID, component: component)
        keepers.withLock { $0[runID] = keeper }
        do {
            try await transactionOnce("starting run \(runID) of component '\(component)'", answer: .none) {
                connection in
                try await self.forgetOldOperations(connection)
                _ = try await self.run(plan, connection)
            }
        } catch {
            keepers.withLock { $0[runID] = nil }
            await keeper.stop(closing: true)
            throw error
        }
    }

    @_spi(SignalStoreDriver)
    public func endRun(_ runID: String, component: String, applying plan: StorePlan) async throws(SignalError) {
        let keeper = keepers.withLock { $0.removeValue(forKey: runID) }
        await keeper?.stop(closing: false)
        do {
            // Bounded by the lease: a run that cannot be ended sooner is taken over after it anyway.
            _ = try await transactionOnce(
                "ending run \(runID) of component '\(component)'", within: min(options.reconnectFor, options.lease),
                answer: .numbers
            ) { connection in
                try await self.run(plan, connection)
            }
        } catch {
            await keeper?.stop(closing: true)
            throw error
        }
        await keeper?.stop(closing: true)
    }

    /// Stops the run's keeper and closes its connection, which releases the run's advisory lock:
    /// other processes (on any host) may take the run over. The store's idle connections are closed
    /// too.
    @_spi(SignalStoreDriver)
    public func suspendRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int] {
        let counts = try await apply(plan)
        let keeper = keepers.withLock { $0.removeValue(forKey: runID) }
        await keeper?.stop(closing: true)
        await connections.closeIdle()
        return counts
    }

    /// Takes the run's advisory lock again on a connection of its own, serialized with takers of
    /// the run (their per-run takeover lock), and renews its lease: when its record is gone, the
    /// run was taken over and nothing is kept.
    @_spi(SignalStoreDriver)
    public func resumeRun(
        _ runID: String, component: String, applying plan: StorePlan
    ) async throws(SignalError) -> Bool {
        try await prepare()
        guard let keeper = try await RunKeeper.resume(store: self, runID: runID, component: component)
        else { return false }
        keepers.withLock { $0[runID] = keeper }
        do {
            _ = try await apply(plan)
        } catch {
            // Still suspended: the lock is released again, for a taker or the next resume.
            keepers.withLock { $0[runID] = nil }
            await keeper.stop(closing: true)
            throw error
        }
        return true
    }

    /// A run is gone when it has no record, its advisory lock is free, or its lease expired (then
    /// its lock connection is terminated).
    @_spi(SignalStoreDriver)
    public func takeOver(
        _ candidate: String, of component: String, applying plan: StorePlan
    ) async throws(SignalError) -> [Int]? {
        try await prepare()
        let lease = options.lease.seconds
        // A run whose lease expired may still hold its lock through a connection the server has not
        // noticed is gone: end that connection (best effort; needs the same role or pg_signal_backend).
        let expired = try await connections.run("checking the lease of run \(candidate)") { connection, _ in
            try await self.strings(
                connection.query(
                    """
                    SELECT host FROM runs WHERE run_id = \(candidate)
                    AND extract(epoch FROM clock_timestamp() - heartbeat_at)::float8 > \(lease)
                    """, logger: self.options.logger)
            ).first
        }
        if let host = expired {
            options.logger.info(
                "a run renewed no lease for the lease duration: taking it over and ending its connection",
                metadata: [
                    SignalLogKey.run: .string(candidate), SignalLogKey.component: .string(component),
                    "handlerkit.host": .string(host), "handlerkit.lease": .stringConvertible(Int(lease)),
                ])
            _ = try? await connections.run("ending the connection of run \(candidate)") { connection, _ in
                try await connection.query(
                    """
                    SELECT pg_terminate_backend(backend_pid) FROM runs WHERE run_id = \(candidate)
                    """, logger: self.options.logger)
            }
        }
        return try await transactionOnce(
            "taking over dead run \(candidate) of component '\(component)'", answer: .optionalNumbers
        ) { connection -> [Int]? in
            // One taker at a time per candidate.
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtext(\(self.namespace + ":takeover")), hashtext(\(candidate)))",
                logger: self.options.logger)
            let rows = try await connection.query(
                """
                SELECT pg_try_advisory_xact_lock(hashtext(\(self.namespace)), lock_key)
                    OR extract(epoch FROM clock_timestamp() - heartbeat_at)::float8 > \(lease), host
                FROM runs WHERE run_id = \(candidate)
                """, logger: self.options.logger)
            var found: (dead: Bool, host: String)?
            for try await (dead, host) in rows.decode((Bool, String).self) { found = (dead, host) }
            if let found, !found.dead { return nil }
            // A taker that was itself taken over takes nothing over.
            if let taker = plan.taker, try await !self.run(StoreReads.isRecorded(taker).sql, on: connection) {
                return nil
            }
            let counts = try await self.run(plan, connection)
            if let report = plan.takeoverReport(counts: counts) {
                var metadata: Logger.Metadata = [
                    SignalLogKey.run: .string(plan.taker ?? "?"), SignalLogKey.component: .string(component),
                    "handlerkit.interrupted_deliveries": .stringConvertible(report.interruptedDeliveries),
                    "handlerkit.adopted_consumers": .stringConvertible(report.adoptedConsumers),
                    "handlerkit.removed_consumers": .stringConvertible(report.removedConsumers),
                ]
                if report.deadRuns.isEmpty {
                    // The run had ended cleanly: its record went with it, and so did its host.
                    metadata["handlerkit.ended_run"] = .string(candidate)
                    self.options.logger.debug(
                        "adopted the consumers of a run that ended cleanly", metadata: metadata)
                } else {
                    metadata["handlerkit.dead_run"] = .string(candidate)
                    metadata["handlerkit.host"] = .string(found?.host ?? "?")
                    self.options.logger.info("took over a dead run", metadata: metadata)
                }
            }
            return counts
        }
    }

    /// Made once (`transactionOnce`) when the program says how its answer is recorded: a try after a
    /// lost connection does not apply it again. A program that may run again harmlessly (it says so
    /// by recording nothing) is tried again as it is.
    @_spi(SignalStoreDriver)
    public func perform<Result: Sendable>(_ program: StoreProgram<Result>) async throws(SignalError) -> Result {
        if readsOnly { throw .storeReadOnly(path: location, operation: program.purpose) }
        try await prepare()
        switch program.shortcut {
        case .complete(let delivery, let endingConsumer, let next, let now, let answer)?:
            return answer(try await complete(delivery, endingConsumer: endingConsumer, thenStarting: next, now: now))
        case .completeGroup(let group, let request, let now, let answer)?:
            return answer(try await complete(group, thenClaiming: request, now: now))
        case .claim(let request, let now, let answer)?:
            return answer(try await claim(request, now: now))
        case .post(let posting, let now, let answer)?:
            return answer(try await post(posting, now: now))
        case .posts(let postings, let now, let answer)?:
            return try await post(postings, now: now, answer: answer, program: program)
        case .settle(let id, let now, let decide, let answer)?:
            return answer(try await settle(id, now: now, decide: decide))
        case nil: break
        }
        guard let record = program.record else {
            return try await connections.transaction(program.purpose) { connection in
                try await self.run(program, connection)
            }
        }
        return try await transactionOnce(program.purpose, answer: RecordedAnswer(record)) { connection in
            try await self.run(program, connection)
        }
    }

    /// Runs `program` in the caller's transaction (the steps' statements are the SQL stores' own,
    /// `StepStatements`), then sends the wake-up it names (at the commit); returns its answer.
    func run<Result: Sendable>(_ program: StoreProgram<Result>, _ connection: PostgresConnection) async throws -> Result
    {
        let logger = options.logger
        let (result, wakeUp) = try await program.run(
            step: { step in try await self.make(step, connection) },
            rows: { statement in try await Self.rows(of: statement, connection, logger: logger) },
            change: HotPathStatements.statement(for:))
        switch wakeUp {
        case .run(let run)?: try await notify(connection, run: run)
        case .everyCenter?: try await notify(connection)
        case nil: break
        }
        return result
    }

    /// Makes the steps of `plan` in the caller's transaction, then sends the wake-up it names (at the
    /// commit); returns the rows each step changed.
    func run(_ plan: StorePlan, _ connection: PostgresConnection) async throws -> [Int] {
        try await run(plan.program, connection)
    }

    /// Makes `step` with its statements (`StepStatements`); returns the rows it changed.
    func make(_ step: StoreStep, _ connection: PostgresConnection) async throws -> Int {
        var count = 0
        for statement in StepStatements.statements(for: step, history: options.completionHistory.seconds) {
            count += try await execute(statement, connection)
        }
        return count
    }

    /// Runs `statement`; returns what counts of it (`SQLStatement.Answer`). A release, on the path
    /// of every failed attempt, runs prepared (`PostgresStatements.Release`, the same statement).
    func execute(_ statement: SQLStatement, _ connection: PostgresConnection) async throws -> Int {
        if statement.sql == StepStatements.releaseClaimSQL {
            var released = 0
            for try await value in try await connection.execute(
                PostgresStatements.Release(arguments: statement.arguments), logger: options.logger)
            {
                released = value
            }
            return released
        }
        let bindings = statement.arguments.bindings
        switch statement.answer {
        case .changes:
            return try await count(
                connection.query(
                    PostgresQuery(unsafeSQL: PostgresStatements.counting(statement.sql), binds: bindings),
                    logger: options.logger))
        case .ids:
            var ids = 0
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: statement.sql, binds: bindings), logger: options.logger)
            for try await _ in rows.decode(Int64.self) { ids += 1 }
            return ids
        case .nothing:
            try await connection.query(PostgresQuery(unsafeSQL: statement.sql, binds: bindings), logger: options.logger)
            return 0
        }
    }

    /// Wakes the centers of `run` (of every run when empty) when the transaction commits.
    func notify(_ connection: PostgresConnection, run: String = "") async throws {
        try await connection.query("SELECT pg_notify(\(channel), \(run))", logger: options.logger)
    }
}
#endif
