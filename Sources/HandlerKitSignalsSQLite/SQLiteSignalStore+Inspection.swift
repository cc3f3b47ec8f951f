import Foundation
import GRDB
import HandlerKitSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SQLiteSignalStore {
    /// Opens the database at `path` read-only: refuses a missing or empty file, a database that is not
    /// a signal store, and a signal store of another schema version, writing nothing.
    static func openForReading(path: String, options: Options) throws(SignalError) -> DatabaseQueue {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size else {
            throw .storeUnavailable(
                path: path, reason: "there is no file there; give the path of a store's database file")
        }
        guard size > 0 else {
            throw .storeUnavailable(path: path, reason: "the file is empty (0 bytes): it holds no store")
        }
        let files = StoreFiles(path: path)
        try files.checkLogFiles(operation: "opening the store for reading")
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "HandlerKitSignals inspection"
        configuration.busyMode = .callback(busyCallback(budget: options.busyTimeout))
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let found = try queue.read { db in try SQLiteSchema.version(of: db, path: path) }
            if found == 0 {
                throw SignalError.notASignalStore(path: path, found: "an empty SQLite database (no tables)")
            }
            // An older store is read as it is (what a later version added is missing from its records).
            return queue
        } catch {
            throw openingError(error, files: files, operation: "opening the store for reading")
        }
    }
}

// MARK: Inspection

extension SQLiteSignalStore: InspectableSignalStore {
    /// A run is alive while its lock file is locked (testing it takes a shared lock for an instant,
    /// which a taker meanwhile sees as alive, and tries again later).
    public func runRecords() async throws(SignalError) -> [RunRecord] {
        let rows = try await read("listing runs") { db in
            try Row.fetchAll(db, sql: "SELECT run_id, component, pid, started_at FROM runs ORDER BY started_at, run_id")
                .map { row -> (String, String, Int, Double) in
                    let id: String = try Self.column(row, "run_id", table: "runs", key: "?")
                    return (
                        id, try Self.column(row, "component", table: "runs", key: id),
                        try Self.column(row, "pid", table: "runs", key: id),
                        try Self.column(row, "started_at", table: "runs", key: id)
                    )
                }
        }
        let directory = runsDirectory
        return rows.map { id, component, pid, started in
            RunRecord(
                runID: id, component: component, host: nil, processID: pid,
                startedAt: Date(timeIntervalSince1970: started), heartbeatAt: nil,
                isAlive: Self.isLocked(RunLockFile.path(of: id, in: directory)))
        }
    }

    /// Whether a process holds the lock of the lock file at `path` (a missing file: no one).
    private static func isLocked(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(fd, LOCK_UN)
        return false
    }

    public func deliveries(matching filter: DeliveryFilter) async throws(SignalError) -> [DeliveryRecord] {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        func add(_ condition: String, _ value: (any DatabaseValueConvertible)?) {
            conditions.append(condition)
            arguments.append(value)
        }
        if let states = filter.states {
            let chosen = DeliveryFilter.State.allCases.filter(states.contains).map(Self.condition(of:))
            conditions.append(chosen.isEmpty ? "0" : "(" + chosen.joined(separator: " OR ") + ")")
        }
        if let component = filter.component { add("d.component = ?", component) }
        if let signal = filter.signalID { add("d.signal_id = ?", signal) }
        if let handler = filter.handlerID { add("d.handler_id = ?", handler) }
        if let consumer = filter.consumerID { add("d.consumer_id = ?", consumer.rawValue) }
        if let key = filter.key { add("d.delivery_key = ?", key.rawValue) }
        if let before = filter.madeBefore { add("d.created_at < ?", before.timeIntervalSince1970) }
        let bodies = filter.includesBodies
        let sql = """
            SELECT d.*\(bodies ? ", b.handler AS body_handler, b.payload AS body_payload" : "") FROM deliveries d
            \(bodies ? "LEFT JOIN delivery_bodies b ON b.delivery_id = d.id" : "")
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")) ORDER BY d.id
            \(filter.limit.map { "LIMIT \(max(0, $0))" } ?? "")
            """
        let statementArguments = StatementArguments(arguments)
        return try await read("listing deliveries") { db in
            try Row.fetchAll(db, sql: sql, arguments: statementArguments).map { row in
                try Self.deliveryRecord(row, bodies: bodies)
            }
        }
    }

    /// The SQL condition of a state of `DeliveryFilter`.
    private static func condition(of state: DeliveryFilter.State) -> String {
        switch state {
        case .pending: "(d.state = \(DeliveryState.pending.sqlLiteral) AND d.last_error IS NULL)"
        case .retrying: "(d.state = \(DeliveryState.pending.sqlLiteral) AND d.last_error IS NOT NULL)"
        case .claimed: "d.state = \(DeliveryState.claimed.sqlLiteral)"
        case .dead: "d.state = \(DeliveryState.dead.sqlLiteral)"
        }
    }

    private static func deliveryRecord(_ row: Row, bodies: Bool) throws -> DeliveryRecord {
        let key: String = try column(row, "delivery_key", table: "deliveries", key: "?")
        func value<T: DatabaseValueConvertible>(_ name: String) throws -> T {
            try column(row, name, table: "deliveries", key: key)
        }
        // A column a later schema added is missing from an older store's rows.
        func optional<T: DatabaseValueConvertible>(_ name: String) -> T? {
            row.hasColumn(name) ? T.fromDatabaseValue(row[name] as DatabaseValue) : nil
        }
        let consumer: String = try value("consumer_id")
        let stateText: String = try value("state")
        guard let state = DeliveryState(rawValue: stateText) else {
            throw SignalError.malformedRecord(
                table: "deliveries", key: key, column: "state", reason: "unknown state '\(stateText.prefix(40))'")
        }
        return DeliveryRecord(
            key: DeliveryKey(key), consumerID: ConsumerID(consumer), component: try value("component"),
            lifetime: try ConsumerLifetime(stored: try value("lifetime"), consumer: consumer),
            handlerID: try value("handler_id"), signalID: try value("signal_id"), revision: try value("revision"),
            state: state, ownerRun: try value("owner_run"), claimedBy: optional("claimed_by"),
            claimedAt: (optional("claimed_at") as Double?).map(Date.init(timeIntervalSince1970:)),
            attempts: try value("attempt"), started: (optional("started") as Int? ?? 0) != 0,
            previousAttemptCrashed: (optional("crashed") as Int? ?? 0) != 0,
            dueAt: Date(timeIntervalSince1970: try value("not_before")), lastError: optional("last_error"),
            madeAt: Date(timeIntervalSince1970: try value("created_at")),
            handler: bodies ? (optional("body_handler") as Data?).map { [UInt8]($0) } : nil,
            payload: bodies ? (optional("body_payload") as Data?).map { [UInt8]($0) } : nil)
    }

    public func deliveryCounts() async throws(SignalError) -> [DeliveryCount] {
        try await read("counting deliveries") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT component, state, last_error IS NOT NULL AS failed, COUNT(*) AS count, MIN(created_at) AS oldest
                    FROM deliveries GROUP BY component, state, failed
                    """
            ).reduce(into: [DeliveryCount]()) { counts, row in
                let component: String = try Self.column(row, "component", table: "deliveries", key: "COUNT(*)")
                let stateText: String = try Self.column(row, "state", table: "deliveries", key: "COUNT(*)")
                let failed: Int = try Self.column(row, "failed", table: "deliveries", key: "COUNT(*)")
                let state = DeliveryFilter.state(
                    of: DeliveryState(rawValue: stateText) ?? .dead, lastError: failed != 0 ? "" : nil)
                let count: Int = try Self.column(row, "count", table: "deliveries", key: "COUNT(*)")
                let oldest = Date(
                    timeIntervalSince1970: try Self.column(row, "oldest", table: "deliveries", key: "COUNT(*)"))
                if let index = counts.firstIndex(where: { $0.component == component && $0.state == state }) {
                    counts[index].count += count
                    counts[index].oldestMadeAt = min(counts[index].oldestMadeAt, oldest)
                } else {
                    counts.append(DeliveryCount(component: component, state: state, count: count, oldestMadeAt: oldest))
                }
            }
        }
    }

    public func signalRecords() async throws(SignalError) -> [SignalRecord] {
        try await read("listing signal records") { db in
            try Row.fetchAll(
                db, sql: "SELECT signal_id, revision, posted_at, keep_until FROM signals ORDER BY signal_id"
            ).map { row in
                let id: String = try Self.column(row, "signal_id", table: "signals", key: "?")
                return SignalRecord(
                    signalID: id, revision: try Self.column(row, "revision", table: "signals", key: id),
                    postedAt: Date(timeIntervalSince1970: try Self.column(row, "posted_at", table: "signals", key: id)),
                    keptUntil: Double.fromDatabaseValue(row["keep_until"] as DatabaseValue).map(
                        Date.init(timeIntervalSince1970:)))
            }
        }
    }

    public func completions(matching filter: CompletionFilter) async throws(SignalError) -> [CompletionEntry] {
        let limit = filter.limit.map { "LIMIT \(max(0, $0))" } ?? ""
        let arguments: StatementArguments = [
            filter.key?.rawValue, filter.consumerID?.rawValue, filter.signalID,
            filter.completedBefore?.timeIntervalSince1970,
        ]
        return try await read("listing completions") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM completions WHERE (?1 IS NULL OR delivery_key = ?1) AND (?2 IS NULL OR consumer_id = ?2)
                    AND (?3 IS NULL OR signal_id = ?3) AND (?4 IS NULL OR completed_at < ?4)
                    ORDER BY completed_at, rowid \(limit)
                    """, arguments: arguments
            ).map { row in
                let key: String = try Self.column(row, "delivery_key", table: "completions", key: "?")
                func value<T: DatabaseValueConvertible>(_ name: String) throws -> T {
                    try Self.column(row, name, table: "completions", key: key)
                }
                return CompletionEntry(
                    key: DeliveryKey(key), consumerID: ConsumerID(try value("consumer_id")),
                    signalID: try value("signal_id"), revision: try value("revision"), runID: try value("run_id"),
                    attempt: try value("attempt"), completedAt: Date(timeIntervalSince1970: try value("completed_at")))
            }
        }
    }
}
