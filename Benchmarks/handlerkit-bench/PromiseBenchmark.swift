// `handlerkit-bench promise.`: a durable promise settled in one process → the task awaiting it resumes
// in another (SQLite); `bash Scripts/with-postgres.sh swift run -c release --traits PostgreSQL
// handlerkit-bench promise_pg.`: the same on PostgreSQL. The awaiting process is this program again
// (`--promise-child sqlite PATH` or `--promise-child postgres URL`): it makes each promise (with a
// fallback handler, so the settlement is handed over through its delivery), says so, and awaits it;
// the figure runs from just before the settling call to the awaiting task's resumption, on the
// monotonic clock both processes share.
import Foundation
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsSQLite

#if PostgreSQL
import HandlerKitSignalsPostgres
#endif

enum PromiseBenchmark {
    static let childFlag = "--promise-child"
    static let rounds = 1_000

    enum Fallback {
        /// The promises' fallback handler (the benchmark's settlements are always awaited).
        @handler
        static func settled(promiseID: String) {
            sink &+= promiseID.utf8.count
        }
    }

    /// In the child: makes and awaits `rounds` promises, printing `waiting <i>` before each wait and
    /// `resumed <i> <monotonic ns>` after it.
    static func runChildIfAsked() async throws -> Bool {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: childFlag), index + 2 < arguments.count else { return false }
        let store = try openStore(kind: arguments[index + 1], location: arguments[index + 2])
        let registry = HandlerRegistry()
        try registry.register(.handlerkit_bench)
        let center = try await SignalCenter.start(component: "bench-app", store: store, registry: registry)
        for round in 0..<rounds {
            let promise = try await center.makePromise(
                of: Int.self, id: "b\(round)", fallback: try Fallback.settledHandler(registry: registry))
            FileHandle.standardOutput.write(Data("waiting \(round)\n".utf8))
            let value = try await center.value(of: promise)
            FileHandle.standardOutput.write(Data("resumed \(value) \(SignalsBenchmark.monotonicNanoseconds())\n".utf8))
        }
        try await center.stop()
        return true
    }

    static func openStore(kind: String, location: String) throws -> any SignalStore {
        if kind == "postgres" {
            #if PostgreSQL
            return try PostgresSignalStore(url: location)
            #else
            throw BenchmarkFailure("built without the package trait PostgreSQL")
            #endif
        }
        return try SQLiteSignalStore(path: location)
    }

    /// The SQLite figure (filter `promise.`), or the PostgreSQL one (filter `promise_pg.`).
    static func run(filter: String?) async throws {
        if let filter, filter.hasPrefix("promise_pg") {
            #if PostgreSQL
            guard let url = ProcessInfo.processInfo.environment[PostgresSettings.urlVariable] else {
                print("promise_pg: HANDLERKIT_POSTGRES_URL is not set; run it through Scripts/with-postgres.sh")
                return
            }
            let schema = "bench_promise_\(UInt32.random(in: 0...UInt32.max))"
            let location = SignalsBenchmark.postgresURL(url, schema: schema)
            try await report("promise_pg", store: try PostgresSignalStore(url: location), kind: "postgres", location)
            #else
            print("promise_pg.: built without the package trait PostgreSQL (add --traits PostgreSQL)")
            #endif
            return
        }
        guard filter.map({ "promise.".hasPrefix($0) || $0.hasPrefix("promise.") }) ?? true else { return }
        let folder = FileManager.default.temporaryDirectory.appending(
            path: "handlerkit-bench-promise-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "signals.sqlite").path
        try await report("promise", store: try SQLiteSignalStore(path: path), kind: "sqlite", path)
    }

    /// Settles each promise the child awaits, 2 ms after it says it waits, and prints p50 and p99.
    static func report(_ prefix: String, store: any SignalStore, kind: String, _ location: String) async throws {
        let settler = try await SignalCenter.start(
            component: "bench-extension", store: store, options: .init(deliversAutomatically: false))
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = [childFlag, kind, location]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let reader = LineReader(output.fileHandleForReading)
        var latencies: [Double] = []
        for round in 0..<rounds {
            guard reader.next() == "waiting \(round)" else { throw BenchmarkFailure("the awaiting process stopped") }
            try await Task.sleep(for: .milliseconds(2))
            let start = SignalsBenchmark.monotonicNanoseconds()
            try await settler.fulfil(DurablePromise<Int>(id: "b\(round)"), with: round, settlementKey: "bench")
            guard let line = reader.next(), line.hasPrefix("resumed \(round) "),
                let resumed = line.split(separator: " ").last.flatMap({ UInt64($0) })
            else { throw BenchmarkFailure("the awaiting process stopped reporting") }
            latencies.append(Double(resumed &- start) / 1_000)
        }
        process.waitUntilExit()
        try await settler.stop()
        latencies.sort()
        print("\(prefix).settle_to_resume_p50_us: \(String(format: "%.0f", latencies[latencies.count / 2])) us")
        print("\(prefix).settle_to_resume_p99_us: \(String(format: "%.0f", latencies[latencies.count * 99 / 100])) us")
    }
}
