// Compiled with the package trait `PostgreSQL` only (`swift run -c release --traits PostgreSQL handlerkit-bench signals_pg.`).
#if PostgreSQL
// `handlerkit-bench signals_pg.`: the signal store on PostgreSQL (HANDLERKIT_POSTGRES_URL; run it with
// `bash Scripts/with-postgres.sh swift run -c release handlerkit-bench signals_pg.`). Consumers run in
// child processes (this program again, `signals_pg.child …`). Latency is measured from the start of
// the post (its commit included) to the start of the handler in the other process, on the wall clock
// both processes share.
import Foundation
@_spi(HandlerKitGenerated) import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsPostgres
import PostgresNIO

enum SignalsPostgresBench {
    static let signals = 10_000

    /// Runs the figures (or, as `signals_pg.child SCHEMA PREFIX SIGNALS COUNT`, a consumer process).
    static func main(_ arguments: [String]) async throws {
        guard let url = ProcessInfo.processInfo.environment[PostgresSettings.urlVariable] else {
            print(
                "signals_pg: HANDLERKIT_POSTGRES_URL is not set; run: bash Scripts/with-postgres.sh swift run -c release handlerkit-bench signals_pg."
            )
            return
        }
        if arguments.first == "signals_pg.child", arguments.count == 5, let signalCount = Int(arguments[3]),
            let count = Int(arguments[4])
        {
            try await consume(
                url: url, schema: arguments[1], prefix: arguments[2], signalCount: signalCount, count: count)
            return
        }
        for pass in passes(url) { try await run(url: pass.url, names: pass.names) }
    }

    /// The runs of the figures: with the URL as given, as users run the store (TLS when the server
    /// offers it: `sslmode=prefer`, as libpq), named `signals_pg.…`; then, when the URL names no
    /// `sslmode`, without TLS (`sslmode=disable`), named `signals_pg.no_tls.…`.
    static func passes(_ url: String) -> [(url: String, names: String)] {
        let setsMode = URLComponents(string: url)?.queryItems?.contains { $0.name == "sslmode" } ?? false
        if setsMode { return [(url, "signals_pg.")] }
        return [
            (url, "signals_pg."), (url + (url.contains("?") ? "&" : "?") + "sslmode=disable", "signals_pg.no_tls."),
        ]
    }

    /// Every figure, over connections made from `url`, each printed as `names` + its name.
    static func run(url: String, names: String) async throws {
        let schema = "bench_\(UInt32.random(in: 0...UInt32.max))"
        try await baseline(url: url, names: names)
        let store = try PostgresSignalStore(url: SignalsBenchmark.postgresURL(url, schema: schema))
        try await postCost(store, names: names)
        let poster = try await SignalCenter.start(
            component: "bench-poster", store: store, options: .init(deliversAutomatically: false))

        // Latency: one consumer process, posts paced 2 ms apart so none waits behind another.
        let latencies = try await withConsumers(
            1, url: url, schema: schema, prefix: "lat", signalCount: 1, count: 2_000
        ) {
            for _ in 0..<2_000 {
                try await poster.post(SignalID("lat0-0"), payload: ["sentAt": Date().timeIntervalSince1970])
                try await Task.sleep(for: .milliseconds(2))
            }
        }.latencies.sorted()
        print(
            "\(names)cross_process_latency_p50_us: \(String(format: "%.0f", latencies[latencies.count / 2])) us")
        print(
            "\(names)cross_process_latency_p99_us: \(String(format: "%.0f", latencies[latencies.count * 99 / 100])) us"
        )

        // Delayed posts: 200 posted at once, due one every 10 ms from 300 ms on; how late each handler
        // starts in the consumer process after its time (its center sleeps until the earliest due one).
        // Each carries its time as `sentAt`, so the consumer's latency is the lateness.
        let lateness = try await withConsumers(1, url: url, schema: schema, prefix: "delay", signalCount: 1, count: 200)
        {
            let first = Date().addingTimeInterval(0.3)
            for index in 0..<200 {
                let due = first.addingTimeInterval(Double(index) * 0.01)
                try await poster.post(
                    SignalID("delay0-0"), payload: ["sentAt": due.timeIntervalSince1970], notBefore: due)
            }
        }.latencies.sorted()
        print(
            "\(names)delayed_start_lateness_p50_ms: \(String(format: "%.1f", lateness[lateness.count / 2] / 1_000)) ms"
        )
        print(
            "\(names)delayed_start_lateness_p99_ms: \(String(format: "%.1f", lateness[lateness.count * 99 / 100] / 1_000)) ms"
        )
        print(
            "\(names)delayed_start_earliest_ms: \(String(format: "%.1f", lateness[0] / 1_000)) ms")

        // One consumer process with 8 signals of its own, posted round robin by four posting tasks.
        let start = Date().timeIntervalSince1970
        let result = try await withConsumers(1, url: url, schema: schema, prefix: "tp1", signalCount: 8, count: signals)
        {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<4 {
                    group.addTask {
                        for index in stride(from: task, to: signals, by: 4) {
                            try await poster.post(
                                SignalID("tp10-\(index % 8)"), payload: ["sentAt": Date().timeIntervalSince1970])
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        print(
            "\(names)throughput_per_s: \(String(format: "%.0f", Double(signals) / (result.end - start))) signals/s")
        try await poster.stop()
        await store.close()

        // Four worker processes sharing one work queue, its jobs posted one at a time by four tasks.
        let shared = try await QueueBenchmark.throughput(
            workers: 4, posting: .singly, store: SignalsBenchmark.postgresURL(url, schema: schema + "_queue"))
        print(
            "\(names)throughput_4_consumers_per_s: \(String(format: "%.0f", shared)) signals/s")
    }

    /// The baseline and the floors, through postgres-nio on a connection made as the store makes its
    /// own (TLS as `url` says). The baseline: a transaction of four round trips (`BEGIN`, insert a row
    /// of a delivery's size, delete it, `COMMIT`). The floors: one statement, committed on its own,
    /// that inserts one row (or 64) and deletes the row (or 64) the previous one inserted; as rows per
    /// second, the most a store could do that spends one such transaction on each delivery, or on
    /// each 64. Also says whether the connection uses TLS.
    static func baseline(url: String, names: String) async throws {
        let settings = try PostgresSettings(url: url)
        let tls = try PostgresTLS(settings: settings, appTLS: nil)
        var configuration = PostgresConnection.Configuration(
            host: settings.host, port: settings.port, username: settings.username, password: settings.password,
            database: settings.database, tls: tls.tls)
        configuration.options.tlsServerName = tls.serverName
        let logger = Logger(label: "bench")
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        var usesTLS = false
        for try await value in try await connection.query(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: logger
        ).decode(Bool.self) { usesTLS = value }
        print("\(names): connections \(usesTLS ? "with" : "without") TLS (sslmode=\(settings.tlsMode.rawValue))")
        try await connection.query(
            "CREATE TEMPORARY TABLE baseline (id bigserial PRIMARY KEY, body bytea NOT NULL)", logger: logger)
        let body = ByteBuffer(repeating: 7, count: 160)
        let rounds = 1_000
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<rounds {
            try await connection.query("BEGIN", logger: logger)
            var id: Int64 = 0
            for try await value in try await connection.query(
                "INSERT INTO baseline (body) VALUES (\(body)) RETURNING id", logger: logger
            ).decode(Int64.self) { id = value }
            try await connection.query("DELETE FROM baseline WHERE id = \(id)", logger: logger)
            try await connection.query("COMMIT", logger: logger)
        }
        print(
            "\(names)baseline_pg_txn_us: \(String(format: "%.0f", microseconds(clock.now - start) / Double(rounds))) us"
        )
        let one = try await floorTime(rows: 1, rounds: rounds, body: body, connection)
        let batch = try await floorTime(rows: 64, rounds: rounds / 4, body: body, connection)
        print("\(names)floor_txn_1_row_us: \(String(format: "%.0f", one)) us")
        print("\(names)floor_txn_64_rows_us: \(String(format: "%.0f", batch)) us")
        print("\(names)floor_1_row_per_s: \(String(format: "%.0f", 1e6 / one)) rows/s")
        print("\(names)floor_64_rows_per_s: \(String(format: "%.0f", 64e6 / batch)) rows/s")
        try await connection.close()
    }

    /// Microseconds per statement, committed on its own, that inserts `rows` rows holding `body` and
    /// deletes those the previous one inserted: the mean over `rounds`.
    static func floorTime(
        rows: Int, rounds: Int, body: ByteBuffer, _ connection: PostgresConnection
    ) async throws -> Double {
        let logger = Logger(label: "bench")
        let clock = ContinuousClock()
        var previous: [Int64] = []
        let start = clock.now
        for _ in 0..<rounds {
            var inserted: [Int64] = []
            for try await value in try await connection.query(
                """
                WITH gone AS (DELETE FROM baseline WHERE id = ANY(\(previous)))
                INSERT INTO baseline (body) SELECT \(body) FROM generate_series(1, \(rows)) RETURNING id
                """,
                logger: logger
            ).decode(Int64.self) { inserted.append(value) }
            previous = inserted
        }
        return microseconds(clock.now - start) / Double(rounds)
    }

    /// A post with one consumer (in this process, not delivering), committed.
    static func postCost(_ store: PostgresSignalStore, names: String) async throws {
        let center = try await SignalCenter.start(
            component: "bench-post", store: store, options: .init(deliversAutomatically: false))
        let consumer = try await center.register(
            try Handler(id: "Bench.received", registry: benchRegistry), for: "post-cost",
            delivery: .everyRevision)
        let rounds = 2_000
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<rounds { try await center.post("post-cost", payload: ["sentAt": 0.0]) }
        print(
            "\(names)post_us: \(String(format: "%.0f", microseconds(clock.now - start) / Double(rounds))) us")
        // The same posts 100 at a time in one bulk post: the cost per post.
        let bulkStart = clock.now
        for round in 0..<(rounds / 100) {
            try await center.post((0..<100).map { _ in SignalPost("post-cost", payload: ["sentAt": Double(round)]) })
        }
        print(
            "\(names)bulk_post_per_signal_us: \(String(format: "%.0f", microseconds(clock.now - bulkStart) / Double(rounds))) us"
        )
        _ = try await center.remove(consumer)
        try await center.stop()
    }

    struct Result {
        var latencies: [Double] = []
        /// When the last handler ran (seconds since 1970).
        var end = 0.0
    }

    /// Starts `processes` consumer processes on the server of `url`, runs `posting`, and collects what
    /// they measured.
    static func withConsumers(
        _ processes: Int, url: String, schema: String, prefix: String, signalCount: Int, count: Int,
        _ posting: () async throws -> Void
    ) async throws -> Result {
        var children: [(Process, URL)] = []
        for index in 0..<processes {
            let output = FileManager.default.temporaryDirectory.appending(
                path: "signals-pg-\(schema)-\(prefix)\(index).out")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["signals_pg.child", schema, "\(prefix)\(index)", "\(signalCount)", "\(count)"]
            process.environment = ProcessInfo.processInfo.environment.merging(
                [PostgresSettings.urlVariable: url], uniquingKeysWith: { $1 })
            process.standardOutput = try FileHandle(forWritingTo: output)
            try process.run()
            children.append((process, output))
        }
        // Each child creates `<output>.ready` once its consumers are registered.
        for (_, output) in children {
            while !FileManager.default.fileExists(atPath: output.path + ".ready") {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        try await posting()
        var result = Result()
        for (process, output) in children {
            // Not `waitUntilExit()`: on Linux it polls its run loop without pause, which takes a core from
            // the consumers and the server while the last deliveries run.
            while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
            let text = try String(contentsOf: output, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let fields = line.split(separator: " ")
                if fields.count == 2, fields[0] == "lat", let value = Double(fields[1]) {
                    result.latencies.append(value)
                }
                if fields.count == 2, fields[0] == "end", let value = Double(fields[1]) {
                    result.end = max(result.end, value)
                }
            }
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(atPath: output.path + ".ready")
        }
        return result
    }

    /// A consumer process: every-revision consumers of `<prefix>-0`…, delivered automatically, until
    /// `count` deliveries ran; prints each latency and the time of the last.
    static func consume(url: String, schema: String, prefix: String, signalCount: Int, count: Int) async throws {
        let store = try PostgresSignalStore(url: SignalsBenchmark.postgresURL(url, schema: schema))
        let center = try await SignalCenter.start(
            component: "bench-\(prefix)", store: store, registry: benchRegistry,
            options: .init(claimBatch: 64))
        for index in 0..<signalCount {
            _ = try await center.register(
                try Handler(id: "Bench.received", registry: benchRegistry), for: SignalID("\(prefix)-\(index)"),
                delivery: .everyRevision)
        }
        _ = FileManager.default.createFile(atPath: readyPath(), contents: nil)
        while received.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(5)) }
        let (latencies, end) = received.withLock { ($0.latencies, $0.end) }
        var text = latencies.map { "lat \(String(format: "%.0f", $0))" }.joined(separator: "\n")
        text += "\nend \(end)\n"
        FileHandle.standardOutput.write(Data(text.utf8))
        for consumer in try await center.consumers() { _ = try await center.remove(consumer.id) }
        try await center.stop()
    }

    /// The child's `.ready` file: its standard output's path (a file in the temporary directory) + `.ready`.
    static func readyPath() -> String {
        let path =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/1")) ?? "/tmp/signals-pg-unknown"
        return path + ".ready"
    }

    static func microseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    }

    struct Received {
        var count = 0
        var latencies: [Double] = []
        var end = 0.0
    }

    static let received = Locked(Received())

    /// The consumers' handler: records the latency from `sentAt`.
    static let benchRegistry: HandlerRegistry = {
        let registry = HandlerRegistry()
        try? registry.register(
            HandlerTable(
                module: "SignalsPostgresBench",
                handlers: [
                    HandlerDescriptor(
                        id: "Bench.received", parameters: [.required("sentAt", Double.self)],
                        invoke: { arguments in
                            let sentAt: Double = try arguments.required("sentAt")
                            let now = Date().timeIntervalSince1970
                            received.withLock { state in
                                state.count += 1
                                if sentAt > 0 { state.latencies.append((now - sentAt) * 1e6) }
                                state.end = now
                            }
                        })
                ]))
        return registry
    }()
}
#endif
