import Foundation
import GRDB
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite

#if PostgreSQL
import HandlerKitSignalsPostgres
import Logging
import PostgresNIO
#endif

/// `queue.` (SQLite) and `queue_pg.` (PostgreSQL, through Scripts/with-postgres.sh): the throughput of
/// one work queue worked by 1, 2 and 4 worker processes of one component, each running up to 4
/// handlers at once, in jobs completed per second, and for 2 and 4 workers also as a multiple of
/// one's. First the workers drain a backlog: 20,000 jobs bulk-posted before they start, timed from
/// their start to the last completion (`throughput_1_worker_per_s`, …, `scaling_4_workers`). Then
/// 6,000 jobs bulk-posted while they run, timed from the first post (`…_while_posting`): there the
/// one posting process is part of what is measured. Then the cost of a post inside the
/// application's own transaction, against the same transaction without it (`post_in_transaction_us`,
/// `baseline_transaction_us`): one row inserted and committed.
enum QueueBenchmark {
    static let childFlag = "--queue-worker"
    static let signal: SignalID = "bench.queue.job"
    /// The workers' component.
    static let component = "bench-queue"

    /// Runs a worker and returns `true` when this process was started as one.
    static func runChildIfAsked() async throws -> Bool {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: childFlag) else { return false }
        guard index + 1 < arguments.count else { throw BenchmarkFailure("\(childFlag) needs the store") }
        try await work(store: try open(arguments[index + 1]), waitingForGo: arguments.contains(goFlag))
        return true
    }

    /// A worker's flag: say `ready` at once, and start working when a line arrives on standard input.
    static let goFlag = "--on-go"

    /// A worker (`--queue-worker STORE [--on-go]`): registers the queue's consumer under its id and
    /// runs the queue's deliveries until its standard input closes. With `waitingForGo`, it says
    /// `ready` before it starts and starts when a line arrives (so that workers start together).
    static func work(store: any SignalStore, waitingForGo: Bool) async throws {
        if waitingForGo {
            FileHandle.standardOutput.write(Data("ready\n".utf8))
            _ = readLine()
        }
        let center = try await SignalCenter.start(
            component: component, store: store, registry: registry, options: .init(queueConcurrency: 4))
        try await center.register(
            try QueueJobs.jobHandler(registry: registry), for: signal, lifetime: .queue,
            delivery: .everyRevision, id: ConsumerID("bench.queue.job"))
        if !waitingForGo { FileHandle.standardOutput.write(Data("ready\n".utf8)) }
        _ = FileHandle.standardInput.readDataToEndOfFile()
        try await center.stop()
    }

    /// A PostgreSQL URL (`postgres://…`) or an SQLite file's path.
    static func open(_ store: String) throws -> any SignalStore {
        if store.hasPrefix("postgres") {
            #if PostgreSQL
            return try PostgresSignalStore(url: store)
            #else
            throw BenchmarkFailure("built without the package trait PostgreSQL")
            #endif
        }
        return try SQLiteSignalStore(path: store)
    }

    static func run(filter: String?) async throws {
        if filter.map({ "queue.".hasPrefix($0) || $0.hasPrefix("queue.") }) ?? true {
            let folder = FileManager.default.temporaryDirectory.appending(path: "queue-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            for posting in JobPosting.measured {
                try await scaling("queue", posting) { workers in
                    let name = "queue\(workers)\(posting.suffix).sqlite"
                    let path = folder.appending(path: name).path(percentEncoded: false)
                    return try await throughput(workers: workers, posting: posting, store: path)
                }
            }
            try await transactionCost(sqlite: folder.appending(path: "transaction.sqlite").path(percentEncoded: false))
        }
        if let filter, filter.hasPrefix("queue_pg") {
            guard let url = ProcessInfo.processInfo.environment["HANDLERKIT_POSTGRES_URL"] else {
                print("queue_pg.: HANDLERKIT_POSTGRES_URL is not set; run it through Scripts/with-postgres.sh")
                return
            }
            for posting in JobPosting.measured {
                try await scaling("queue_pg", posting) { workers in
                    let schema = "queue_bench_\(workers)_\(UUID().uuidString.prefix(8).lowercased())"
                    return try await throughput(
                        workers: workers, posting: posting, store: SignalsBenchmark.postgresURL(url, schema: schema))
                }
            }
            #if PostgreSQL
            let schema = "queue_bench_tx_\(UUID().uuidString.prefix(8).lowercased())"
            try await transactionCost(postgres: SignalsBenchmark.postgresURL(url, schema: schema))
            #endif
        }
    }

    /// A store with the queue's consumer registered (by a center that does not deliver), for posts.
    static func withConsumer(_ store: any SignalStore, _ body: () async throws -> Void) async throws {
        let center = try await SignalCenter.start(
            component: component, store: store, registry: registry, options: .init(deliversAutomatically: false))
        try await center.register(
            try QueueJobs.jobHandler(registry: registry), for: signal, lifetime: .queue, delivery: .everyRevision)
        try await body()
        try await center.stop()
    }

    /// Microseconds per round of `body`, the best of 5 rounds of `count`, interleaved with `baseline`'s;
    /// prints both under `prefix`.
    static func compare(
        _ prefix: String, count: Int = 1_000, baseline: (Int) async throws -> Void, withPost: (Int) async throws -> Void
    ) async throws {
        var (best, bestBaseline) = (Double.infinity, Double.infinity)
        let clock = ContinuousClock()
        var row = 0
        for _ in 0..<5 {
            var start = clock.now
            for _ in 0..<count {
                row += 1
                try await baseline(row)
            }
            bestBaseline = min(bestBaseline, (clock.now - start).seconds * 1e6 / Double(count))
            start = clock.now
            for _ in 0..<count {
                row += 1
                try await withPost(row)
            }
            best = min(best, (clock.now - start).seconds * 1e6 / Double(count))
        }
        print("\(prefix).post_in_transaction_us: \(String(format: "%.0f", best)) us")
        print("\(prefix).baseline_transaction_us: \(String(format: "%.0f", bestBaseline)) us")
    }

    /// On SQLite: the application's GRDB write of one row into its table in the store's file.
    static func transactionCost(sqlite path: String) async throws {
        let store = try SQLiteSignalStore(path: path)
        try await withConsumer(store) {
            let app = try DatabaseQueue(path: path)
            try await app.write { db in try db.execute(sql: "CREATE TABLE photos (id INTEGER PRIMARY KEY)") }
            try await compare(
                "queue",
                baseline: { row in
                    try await app.write { db in
                        try db.execute(sql: "INSERT INTO photos (id) VALUES (?)", arguments: [row])
                    }
                },
                withPost: { row in
                    try await app.write { db in
                        try db.execute(sql: "INSERT INTO photos (id) VALUES (?)", arguments: [row])
                        try store.post(signal, payload: ["item": row], in: db)
                    }
                })
        }
    }

    #if PostgreSQL
    /// A postgres-nio connection of the application's own (without TLS) to the server of `settings`.
    static func connect(to settings: PostgresSettings, logger: Logger) async throws -> PostgresConnection {
        try await PostgresConnection.connect(
            configuration: .init(
                host: settings.host, port: settings.port, username: settings.username, password: settings.password,
                database: settings.database, tls: .disable),
            id: 1, logger: logger)
    }

    /// On PostgreSQL: the application's transaction on a postgres-nio connection of its own, inserting
    /// one row into its table.
    static func transactionCost(postgres url: String) async throws {
        let store = try PostgresSignalStore(url: url)
        try await withConsumer(store) {
            let settings = store.settings
            let logger = Logger(label: "bench")
            let connection = try await connect(to: settings, logger: logger)
            let table = "\(settings.schema).photos"
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(table) (id bigint)"), logger: logger)
            func insert(_ row: Int) async throws {
                try await connection.query(
                    PostgresQuery(unsafeSQL: "INSERT INTO \(table) (id) VALUES (\(row))"), logger: logger)
            }
            try await compare(
                "queue_pg",
                baseline: { row in
                    try await connection.query("BEGIN", logger: logger)
                    try await insert(row)
                    try await connection.query("COMMIT", logger: logger)
                },
                withPost: { row in
                    try await connection.query("BEGIN", logger: logger)
                    try await insert(row)
                    try await store.post(signal, payload: ["item": row], in: connection)
                    try await connection.query("COMMIT", logger: logger)
                })
            try await connection.close()
        }
        await store.close()
    }
    #endif

    /// When the jobs are posted: all before the workers start (a backlog they drain), or while they run.
    /// When and how the jobs are posted: `before` the workers start (20,000 in bulk posts of 200),
    /// `during` their work (6,000 in bulk posts of 200), or `singly` during their work (10,000 posts
    /// of one job, made by four tasks at once: `signals_pg.throughput_4_consumers_per_s`).
    enum JobPosting {
        case before, during, singly

        /// The postings of the `queue.` and `queue_pg.` figures.
        static let measured: [Self] = [.before, .during]

        var jobs: Int {
            switch self {
            case .before: 20_000
            case .during: 6_000
            case .singly: 10_000
            }
        }
        /// What the figures' names end with.
        var suffix: String { self == .before ? "" : "_while_posting" }
    }

    /// Jobs completed per second by `workers` worker processes on `store`, the jobs posted as `posting`
    /// says; with `orderingKeys`, job `i` is posted with ordering key `i` modulo their number.
    static func throughput(
        workers: Int, posting: JobPosting, store: String, orderingKeys: Int? = nil
    ) async throws -> Double {
        let opened = try open(store)
        let jobs = posting.jobs
        func post(with poster: SignalCenter) async throws {
            if posting == .singly {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for task in 0..<4 {
                        group.addTask {
                            for item in stride(from: task, to: jobs, by: 4) {
                                try await poster.post(
                                    signal, payload: ["item": item], orderingKey: orderingKeys.map { "k\(item % $0)" })
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                return
            }
            for first in stride(from: 0, to: jobs, by: 200) {
                try await poster.post(
                    (first..<min(first + 200, jobs)).map { item in
                        SignalPost(signal, payload: ["item": item], orderingKey: orderingKeys.map { "k\(item % $0)" })
                    })
            }
        }
        // A backlog's poster is a center of the workers' component that registers the queue's
        // consumer itself and does not deliver; otherwise the first worker registers it.
        let poster = try await SignalCenter.start(
            component: posting == .before ? component : "bench-api", store: opened, registry: registry,
            options: .init(deliversAutomatically: false))
        if posting == .before {
            try await poster.register(
                try QueueJobs.jobHandler(registry: registry), for: signal, lifetime: .queue,
                delivery: .everyRevision, id: ConsumerID("bench.queue.job"))
            try await post(with: poster)
        }
        // Draining a backlog, the workers start together once all are running, and the time begins then.
        var children: [Child] = []
        for _ in 0..<workers {
            children.append(try Child(arguments: [childFlag, store] + (posting == .before ? [goFlag] : [])))
        }
        let clock = ContinuousClock()
        let start = clock.now
        switch posting {
        case .before: for child in children { child.send("go") }
        case .during, .singly: try await post(with: poster)
        }
        // Done when the queue has no delivery left, a read that costs the same however long the queue
        // is (counting the completions, as `statistics()` does, cost the server more than the
        // workers' own statements once thousands were done).
        let queue = WorkQueue.owner(of: component)
        while try await opened.runStatus(of: poster.runID, queue: queue).queueHasDeliveries {
            try await Task.sleep(for: .milliseconds(5))
        }
        let elapsed = clock.now - start
        for child in children { child.finish() }
        try await poster.stop()
        return Double(jobs) / elapsed.seconds
    }

    /// Prints the throughput of 1, 2 and 4 worker processes (`rate` of each) under `prefix`, then
    /// that of 2 and 4 as a multiple of 1's (`scaling_2_workers`, `scaling_4_workers`), each name
    /// ending as `posting` says.
    static func scaling(_ prefix: String, _ posting: JobPosting, rate: (Int) async throws -> Double) async throws {
        var rates: [Int: Double] = [:]
        for workers in [1, 2, 4] {
            rates[workers] = try await rate(workers)
            let name = "\(prefix).throughput_\(workers)_worker\(workers == 1 ? "" : "s")\(posting.suffix)_per_s"
            print("\(name): \(String(format: "%.0f", rates[workers] ?? 0)) jobs/s")
        }
        for workers in [2, 4] {
            let multiple = (rates[workers] ?? 0) / max(rates[1] ?? 1, 1)
            print("\(prefix).scaling_\(workers)_workers\(posting.suffix): \(String(format: "%.2f", multiple)) x")
        }
    }

    /// The benchmark's handlers, the workers' job among them.
    static let registry: HandlerRegistry = {
        let registry = HandlerRegistry()
        try? registry.register(.handlerkit_bench)
        return registry
    }()
}

/// The workers' handler: a job that does nothing.
enum QueueJobs {
    @handler static func job(item: Int) {}
}
