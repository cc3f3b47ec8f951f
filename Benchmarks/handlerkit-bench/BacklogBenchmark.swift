import Foundation
import HandlerKit
import HandlerKitSignals

#if PostgreSQL
import HandlerKitSignalsPostgres
import Logging
import PostgresNIO
#endif

/// `backlog.` (SQLite) and `backlog_pg.` (PostgreSQL, through Scripts/with-postgres.sh): whether a
/// delivery costs the same in a store that holds many pending deliveries as in one that holds none.
///
/// Two stores, each with one worker process (up to 4 handlers at once) working a queue from the
/// store's first use on, so their statements' plans are the ones they made while the tables were
/// empty. `empty_first_10000_per_s`: the first store's first 10,000 jobs. Then the second store is
/// given 100,000 (and on PostgreSQL then 1,000,000) pending deliveries of another component's queue,
/// which no process works; on PostgreSQL its tables are then vacuumed and analyzed, as the server's
/// autovacuum does within a minute or so, so the figures are those of a store that has held its
/// backlog for a while, not of one whose autovacuum competes with the worker for the machine. In
/// rounds that alternate between the two stores (the machine's load then weighs on both alike):
/// - `throughput_per_s`: the best of 3 rounds of 10,000 jobs bulk-posted (200 per post) while the
///   worker runs, from the first post to the worker's last completion;
/// - `latency_p50_us`: 300 posts one at a time, each once the worker is idle, from the post's call
///   to the handler's start in the worker;
/// printed for the store without a backlog (`empty_…`) and the one with (`pending_<n>_…`), and the
/// latter as a multiple of the former (`throughput_vs_empty`, `latency_vs_empty`).
enum BacklogBenchmark {
    static let childFlag = "--backlog-worker"
    static let counted: SignalID = "bench.backlog.counted"
    static let timed: SignalID = "bench.backlog.timed"
    static let jobs = 10_000

    /// The worker's handlers.
    enum Jobs {
        /// Counts; says `done` on standard output at the `total`th job.
        @handler static func counted(total: Int) {
            let reached = count.withLock { count -> Bool in
                count += 1
                guard count == total else { return false }
                count = 0
                return true
            }
            if reached { FileHandle.standardOutput.write(Data("done\n".utf8)) }
        }

        /// Reports when the handler started, as `<index> <monotonic ns>` on standard output.
        @handler static func timed(index: Int) {
            FileHandle.standardOutput.write(Data("\(index) \(SignalsBenchmark.monotonicNanoseconds())\n".utf8))
        }

        static let count = Locked(0)
    }

    /// Runs the worker and returns `true` when this process was started as one.
    static func runChildIfAsked() async throws -> Bool {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: childFlag) else { return false }
        guard index + 1 < arguments.count else { throw BenchmarkFailure("\(childFlag) needs the store") }
        let center = try await SignalCenter.start(
            component: "bench-backlog", store: try QueueBenchmark.open(arguments[index + 1]),
            registry: QueueBenchmark.registry, options: .init(queueConcurrency: 4))
        try await center.register(
            try Jobs.countedHandler(registry: QueueBenchmark.registry), for: counted, lifetime: .queue,
            delivery: .everyRevision, id: ConsumerID(counted.rawValue))
        try await center.register(
            try Jobs.timedHandler(registry: QueueBenchmark.registry), for: timed, lifetime: .queue,
            delivery: .everyRevision, id: ConsumerID(timed.rawValue))
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
        try await center.stop()
        return true
    }

    static func run(filter: String?) async throws {
        if filter.map({ "backlog.".hasPrefix($0) || $0.hasPrefix("backlog.") }) ?? true {
            let folder = FileManager.default.temporaryDirectory.appending(path: "backlog-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try await measure(
                "backlog", store: { folder.appending(path: "\($0).sqlite").path(percentEncoded: false) },
                backlogs: [100_000])
        }
        if let filter, filter.hasPrefix("backlog_pg") {
            guard let url = ProcessInfo.processInfo.environment["HANDLERKIT_POSTGRES_URL"] else {
                print("backlog_pg.: HANDLERKIT_POSTGRES_URL is not set; run it through Scripts/with-postgres.sh")
                return
            }
            let run = UUID().uuidString.prefix(8).lowercased()
            try await measure(
                "backlog_pg", store: { SignalsBenchmark.postgresURL(url, schema: "backlog_bench_\($0)_\(run)") },
                backlogs: [100_000, 1_000_000])
        }
    }

    /// Prints the figures of a store without a backlog against those of one holding each of
    /// `backlogs`; `store` makes a new store's location from a name.
    static func measure(_ prefix: String, store: (String) -> String, backlogs: [Int]) async throws {
        let empty = try await Subject(store("empty"))
        let loaded = try await Subject(store("loaded"))
        let first = try await empty.throughput()
        print("\(prefix).empty_first_10000_per_s: \(String(format: "%.0f", first)) jobs/s")
        var pending = 0
        for backlog in backlogs {
            try await loaded.post(backlog - pending)
            pending = backlog
            var (emptyRounds, loadedRounds) = ([Double](), [Double]())
            var (emptyLatencies, loadedLatencies) = ([Double](), [Double]())
            for _ in 0..<3 {
                emptyRounds.append(try await empty.throughput())
                loadedRounds.append(try await loaded.throughput())
                emptyLatencies += try await empty.latencies(100)
                loadedLatencies += try await loaded.latencies(100)
            }
            let throughput = (emptyRounds.max() ?? 0, loadedRounds.max() ?? 0)
            let latency = (median(emptyLatencies), median(loadedLatencies))
            let name = "\(prefix).pending_\(backlog)"
            print("\(prefix).empty_throughput_per_s: \(String(format: "%.0f", throughput.0)) jobs/s")
            print("\(prefix).empty_latency_p50_us: \(String(format: "%.0f", latency.0)) us")
            print("\(name)_throughput_per_s: \(String(format: "%.0f", throughput.1)) jobs/s")
            print("\(name)_latency_p50_us: \(String(format: "%.0f", latency.1)) us")
            print("\(name)_throughput_vs_empty: \(String(format: "%.2f", throughput.1 / throughput.0)) x")
            print("\(name)_latency_vs_empty: \(String(format: "%.2f", latency.1 / latency.0)) x")
        }
        try await empty.stop()
        try await loaded.stop()
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// A store, its worker process, and the application's center, which posts and owns the queues
    /// of the backlog (it never delivers).
    struct Subject {
        let location: String
        let store: any SignalStore
        let worker: Child
        let app: SignalCenter
        let backlogSignals = (0..<4).map { SignalID("bench.backlog.pending.\($0)") }

        init(_ location: String) async throws {
            self.location = location
            store = try QueueBenchmark.open(location)
            worker = try Child(arguments: [childFlag, location])
            app = try await SignalCenter.start(
                component: "bench-app", store: store, registry: QueueBenchmark.registry,
                options: .init(deliversAutomatically: false))
            for signal in backlogSignals {
                try await app.register(
                    try Jobs.countedHandler(registry: QueueBenchmark.registry), for: signal, lifetime: .queue,
                    delivery: .everyRevision, id: ConsumerID(signal.rawValue))
            }
        }

        /// Jobs per second: 10,000 jobs bulk-posted, until the worker's last completion.
        func throughput() async throws -> Double {
            let clock = ContinuousClock()
            let start = clock.now
            for first in stride(from: 0, to: jobs, by: 200) {
                try await app.post(
                    (first..<min(first + 200, jobs)).map { _ in SignalPost(counted, payload: ["total": jobs]) })
            }
            guard worker.readLine() == "done" else { throw BenchmarkFailure("the worker stopped reporting") }
            return Double(jobs) / (clock.now - start).seconds
        }

        /// Microseconds from each of `count` posts to its handler's start, the worker idle before each.
        func latencies(_ count: Int) async throws -> [Double] {
            var latencies: [Double] = []
            for index in 0..<count {
                try await Task.sleep(for: .milliseconds(2))
                let posted = SignalsBenchmark.monotonicNanoseconds()
                try await app.post(timed, payload: ["index": index])
                guard let line = worker.readLine(),
                    let started = line.split(separator: " ").last.flatMap({ UInt64($0) })
                else { throw BenchmarkFailure("the worker stopped reporting") }
                latencies.append(Double(started &- posted) / 1_000)
            }
            return latencies
        }

        /// Adds `count` pending deliveries to the backlog's queues (one posting task each, 1,000 per
        /// post); on PostgreSQL then vacuums and analyzes the store's tables.
        func post(_ count: Int) async throws {
            let share = count / backlogSignals.count
            try await withThrowingTaskGroup(of: Void.self) { group in
                for signal in backlogSignals {
                    group.addTask { [app] in
                        for first in stride(from: 0, to: share, by: 1_000) {
                            _ = try await app.post(
                                (first..<min(first + 1_000, share)).map { _ in
                                    SignalPost(signal, payload: ["total": 0])
                                })
                        }
                    }
                }
                try await group.waitForAll()
            }
            #if PostgreSQL
            if let store = store as? PostgresSignalStore { try await vacuum(store.settings) }
            #endif
        }

        func stop() async throws {
            try await app.stop()
            worker.finish()
        }
    }

    #if PostgreSQL
    /// Vacuums and analyzes the tables of the store at `settings`.
    static func vacuum(_ settings: PostgresSettings) async throws {
        let logger = Logger(label: "bench")
        let connection = try await QueueBenchmark.connect(to: settings, logger: logger)
        var tables: [String] = []
        for try await table in try await connection.query(
            "SELECT tablename FROM pg_tables WHERE schemaname = \(settings.schema)", logger: logger
        ).decode(String.self) { tables.append(table) }
        for table in tables {
            try await connection.query(
                PostgresQuery(unsafeSQL: "VACUUM (ANALYZE) \(settings.schema).\(table)"), logger: logger)
        }
        try await connection.close()
    }
    #endif
}
