import Foundation
import GRDB
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `signals.*` figures: posting, delivering in the same process and in another one,
/// throughput between two processes, an idle consumer's CPU, and a plain GRDB transaction as baseline.
/// The other process is this executable again, started with `--signals-child DB`.
enum SignalsBenchmark {
    static let childFlag = "--signals-child"

    /// The handlers the benchmark's consumers run.
    enum Probe {
        /// Reports when the handler started, as `<index> <monotonic ns>` on standard output.
        @handler
        static func timed(index: Int) {
            let line = "\(index) \(monotonicNanoseconds())\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }

        /// Counts.
        @handler
        static func counted(index: Int) {
            counter.withLock { $0 += index >= 0 ? 1 : 0 }
        }

        static let counter = Locked(0)
    }

    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    // MARK: The consuming child process

    /// Runs the child's part and returns `true` when this process was started as the child.
    static func runChildIfAsked() async throws -> Bool {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: childFlag) else { return false }
        guard index + 1 < arguments.count else { throw BenchmarkFailure("\(childFlag) needs the database path") }
        try await runChild(database: arguments[index + 1])
        return true
    }

    /// In the child (`--signals-child DB`): delivers `bench.timed` and `bench.counted` revisions as they
    /// are posted, until its standard input closes.
    static func runChild(database: String) async throws {
        let registry = HandlerRegistry()
        try registry.register(.handlerkit_bench)
        let center = try await SignalCenter.start(
            component: "bench-consumer", store: try SQLiteSignalStore(path: database),
            registry: registry)
        _ = try await center.register(
            try Probe.timedHandler(registry: registry), for: "bench.timed", delivery: .everyRevision)
        _ = try await center.register(
            try Probe.countedHandler(registry: registry), for: "bench.counted", delivery: .everyRevision)
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
        try await center.stop()
    }

    // MARK: The figures

    static func run(filter: String?) async throws {
        guard filter.map({ "signals.".hasPrefix($0) || $0.hasPrefix("signals.") }) ?? true else { return }
        let folder = FileManager.default.temporaryDirectory.appending(
            path: "handlerkit-bench-signals-\(UUID().uuidString)"
        )
        .path(percentEncoded: false)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/signals.sqlite"
        let registry = HandlerRegistry()
        try registry.register(.handlerkit_bench)
        let store = try SQLiteSignalStore(path: database)

        // Posting with one consumer (which never delivers here: only the post's transaction is timed).
        let holder = try await SignalCenter.start(
            component: "bench-holder", store: store, registry: registry,
            options: .init(deliversAutomatically: false))
        _ = try await holder.register(
            try Probe.countedHandler(registry: registry), for: "bench.post", lifetime: .run, delivery: .everyRevision)
        let post = try await perOperation(2_000) { index in
            _ = try await holder.post("bench.post", payload: ["index": index])
        }
        report("signals.post_us", post, "us")

        // The same posts 100 at a time in one bulk post: the cost per post.
        let bulk = try await perOperation(20) { round in
            _ = try await holder.post((0..<100).map { SignalPost("bench.post", payload: ["index": round * 100 + $0]) })
        }
        report("signals.bulk_post_per_signal_us", bulk / 100, "us")

        // The floors: a plain GRDB transaction that inserts and deletes one row of a delivery's size,
        // and one that inserts and deletes 64 of them; as deliveries per second, the most a store
        // could do that spends one such transaction on each delivery, or on each 64.
        let baseline = try await baselineTransaction(folder: folder, rowSize: 220, rows: 1)
        report("signals.baseline_sqlite_txn_us", baseline, "us")
        let batchBaseline = try await baselineTransaction(folder: folder, rowSize: 220, rows: 64)
        report("signals.baseline_sqlite_txn_64_rows_us", batchBaseline, "us")
        report("signals.floor_1_row_per_s", 1e6 / baseline, "rows/s")
        report("signals.floor_64_rows_per_s", 64e6 / batchBaseline, "rows/s")

        // Post and deliver in the same process: the handler runs and the delivery is completed.
        let local = try await SignalCenter.start(
            component: "bench-local", store: store, registry: registry,
            options: .init(deliversAutomatically: false))
        _ = try await local.register(
            try Probe.countedHandler(registry: registry), for: "bench.local", lifetime: .run, delivery: .everyRevision)
        let roundtrip = try await perOperation(2_000) { index in
            _ = try await local.post("bench.local", payload: ["index": index])
            _ = try await local.deliverDue()
        }
        report("signals.roundtrip_same_process_us", roundtrip, "us")
        try await local.stop()
        try await holder.stop()

        let child = try Child(database: database)
        defer { child.finish() }
        let poster = try await SignalCenter.start(
            component: "bench-poster", store: store, registry: registry,
            options: .init(deliversAutomatically: false))

        // Cross-process latency: post called → the handler starts in the other process, one at a time,
        // with the consumer idle (sleeping in poll) before each post.
        var latencies: [Double] = []
        for index in 0..<1_000 {
            let start = monotonicNanoseconds()
            _ = try await poster.post("bench.timed", payload: ["index": index])
            guard let line = child.readLine(), let started = line.split(separator: " ").last.flatMap({ UInt64($0) })
            else {
                throw BenchmarkFailure("the consuming process stopped reporting")
            }
            latencies.append(Double(started &- start) / 1_000)
            try await Task.sleep(for: .milliseconds(1))
        }
        latencies.sort()
        report("signals.cross_process_latency_p50_us", latencies[latencies.count / 2], "us")
        report("signals.cross_process_latency_p99_us", latencies[latencies.count * 99 / 100], "us")

        // Delayed posts: 200 posted at once, due one every 10 ms from 200 ms on; how late each handler
        // starts in the other process after its time (its center sleeps until the earliest due one).
        let delayed = 200
        let first = monotonicNanoseconds() + 200_000_000
        let firstDate = Date().addingTimeInterval(0.2)
        for index in 0..<delayed {
            _ = try await poster.post(
                "bench.timed", payload: ["index": index],
                notBefore: firstDate.addingTimeInterval(Double(index) * 0.01))
        }
        var lateness: [Double] = []
        for _ in 0..<delayed {
            guard let line = child.readLine() else { throw BenchmarkFailure("the consuming process stopped reporting") }
            let fields = line.split(separator: " ")
            guard fields.count == 2, let index = Int(fields[0]), let started = UInt64(fields[1]) else {
                throw BenchmarkFailure("the consuming process reported '\(line)'")
            }
            let due = first + UInt64(index) * 10_000_000
            lateness.append((Double(started) - Double(due)) / 1_000_000)
        }
        lateness.sort()
        report("signals.delayed_start_lateness_p50_ms", lateness[lateness.count / 2], "ms")
        report("signals.delayed_start_lateness_p99_ms", lateness[lateness.count * 99 / 100], "ms")
        report("signals.delayed_start_earliest_ms", lateness[0], "ms")

        // Throughput: this process posts 10,000 signals as fast as it can; the other delivers them.
        let clock = ContinuousClock()
        let begin = clock.now
        for index in 0..<10_000 { _ = try await poster.post("bench.counted", payload: ["index": index]) }
        while true {
            let statistics = try await store.statistics()
            if statistics.pendingDeliveries + statistics.claimedDeliveries == 0 { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        report("signals.throughput_per_s", 10_000 / (clock.now - begin).seconds, "signals/s")

        // An idle process with consumers: its CPU time over 10 s without traffic.
        if let idle = try await child.cpuPercent(over: .seconds(10)) {
            report("signals.idle_cpu_percent", idle, "%")
        }
        try await poster.stop()
    }

    /// Microseconds per call of `body`: the mean of the best of three rounds of `count` calls.
    static func perOperation(_ count: Int, _ body: (Int) async throws -> Void) async throws -> Double {
        let clock = ContinuousClock()
        var best = Double.infinity
        for round in 0..<3 {
            let start = clock.now
            for index in 0..<count { try await body(round * count + index) }
            best = min(best, (clock.now - start).seconds * 1e6 / Double(count))
        }
        return best
    }

    /// Microseconds per plain GRDB transaction (WAL, `synchronous = NORMAL`, as the store) that
    /// inserts `rows` rows of `rowSize` bytes and deletes them.
    static func baselineTransaction(folder: String, rowSize: Int, rows: Int) async throws -> Double {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let queue = try DatabaseQueue(path: folder + "/baseline-\(rows).sqlite", configuration: configuration)
        try await queue.write { db in
            try db.execute(sql: "CREATE TABLE rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
        }
        let body = Data(repeating: 0x61, count: rowSize)
        return try await perOperation(max(20, 2_000 / rows)) { _ in
            try await queue.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    let insert = try db.cachedStatement(sql: "INSERT INTO rows (body) VALUES (?)")
                    var first: Int64?
                    for _ in 0..<rows {
                        try insert.execute(arguments: [body])
                        if first == nil { first = db.lastInsertedRowID }
                    }
                    try db.execute(sql: "DELETE FROM rows WHERE id >= ?", arguments: [first])
                    return .commit
                }
            }
        }
    }

    /// The store URL for `schema` on the server of `url` (HANDLERKIT_POSTGRES_URL), keeping the
    /// parameters `url` has (for example `sslmode=disable`, to measure without TLS).
    static func postgresURL(_ url: String, schema: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "schema=" + schema
    }

    static func report(_ name: String, _ value: Double, _ unit: String) {
        print("\(name): \(String(format: "%.1f", value)) \(unit)")
    }
}

/// The consuming child process: this executable with `--signals-child DB`, reporting on a pipe.
final class Child: Sendable {
    private let process: Process
    private let input: Pipe
    private let reader: LineReader

    convenience init(database: String) throws {
        try self.init(arguments: [SignalsBenchmark.childFlag, database])
    }

    /// This executable started with `arguments`, once it said `ready`.
    init(arguments: [String]) throws {
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        reader = LineReader(output.fileHandleForReading)
        guard reader.next() == "ready" else { throw BenchmarkFailure("the consuming process did not start") }
    }

    func readLine() -> String? { reader.next() }

    /// Writes `line` to the child's standard input.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The child's CPU time (user + system) over `duration`, as a percentage of one core (Linux only).
    func cpuPercent(over duration: Duration) async throws -> Double? {
        #if os(Linux)
        func ticks() -> Double? {
            guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After the command: state is field 3, utime field 14, stime field 15 (1-based, of the whole line).
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
            return user + system
        }
        guard let before = ticks() else { return nil }
        try await Task.sleep(for: duration)
        guard let after = ticks() else { return nil }
        return (after - before) / Double(sysconf(Int32(_SC_CLK_TCK))) / duration.seconds * 100
        #else
        return nil
        #endif
    }

    func finish() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// Lines from a file handle, read as they arrive.
final class LineReader: Sendable {
    private let handle: FileHandle
    private let buffer = Locked(Data())

    init(_ handle: FileHandle) { self.handle = handle }

    func next() -> String? {
        while true {
            let line: String? = buffer.withLock { data in
                guard let newline = data.firstIndex(of: 0x0A) else { return nil }
                let text = String(decoding: data[data.startIndex..<newline], as: UTF8.self)
                data.removeSubrange(data.startIndex...newline)
                return text
            }
            if let line { return line }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer.withLock { $0.append(chunk) }
        }
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
