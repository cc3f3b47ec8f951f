import Foundation
import GRDB
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsSQLite

/// The `extension.*` figures: what a short-lived process (an app extension woken for a moment) pays
/// to start a center on an existing store, take over a run that is gone, deliver its 100 deliveries,
/// suspend and exit, beside a process that only opens the same database with plain GRDB and reads one
/// row. Both are this executable again (`--extension-child`, `--extension-baseline`), each started on
/// its own copy of one prepared store (made by `--extension-setup`).
enum ExtensionBudget {
    static let setupFlag = "--extension-setup"
    static let childFlag = "--extension-child"
    static let baselineFlag = "--extension-baseline"
    static let component = "bench-extension"
    static let signal: SignalID = "bench.extension"
    static let deliveries = 100
    /// Processes of each kind; the figures are their medians.
    static let processes = 15

    /// The handler the extension process delivers.
    enum Probe {
        /// Notes when the first delivery started and when the last one ran.
        @handler
        static func received(index: Int) {
            let now = SignalsBenchmark.monotonicNanoseconds()
            let count = progress.withLock { progress in
                if progress.first == 0 { progress.first = now }
                progress.count += 1
                return progress.count
            }
            if count == ExtensionBudget.deliveries { allDelivered.continuation.yield() }
        }

        static let progress = Locked((first: UInt64(0), count: 0))
        static let allDelivered = AsyncStream<Void>.makeStream()
    }
}

// Spawning and the peak resident memory are measured the Linux way (`posix_spawn` with `environ`,
// /proc/self/status); elsewhere the figures are not printed.
#if os(Linux)
extension ExtensionBudget {
    // MARK: The child processes

    /// Runs a child's part and returns `true` when this process was started as one.
    static func runChildIfAsked() async throws -> Bool {
        let arguments = CommandLine.arguments
        for (flag, part) in [(setupFlag, setUp), (childFlag, deliver), (baselineFlag, readOneRow)] {
            guard let index = arguments.firstIndex(of: flag) else { continue }
            guard index + 1 < arguments.count else { throw BenchmarkFailure("\(flag) needs the database path") }
            try await part(arguments[index + 1])
            return true
        }
        return false
    }

    /// `--extension-setup DB`: registers a durable consumer, posts 100 revisions for it, and exits
    /// without stopping, so that the store holds 100 deliveries of a run that is gone.
    static func setUp(database: String) async throws {
        let registry = HandlerRegistry()
        try registry.register(.handlerkit_bench)
        let center = try await SignalCenter.start(
            component: component, store: try SQLiteSignalStore(path: database), registry: registry,
            options: .init(deliversAutomatically: false))
        _ = try await center.register(
            try Probe.receivedHandler(registry: registry), for: signal, delivery: .everyRevision)
        for index in 0..<deliveries { _ = try await center.post(signal, payload: ["index": index]) }
        exit(0)
    }

    /// `--extension-child DB`: what an extension does when woken: starts its center (taking over the
    /// run that is gone), delivers, suspends (as it would before iOS suspends it), and exits. Prints when the first handler started and the
    /// process's peak resident memory.
    static func deliver(database: String) async throws {
        let registry = HandlerRegistry()
        try registry.register(.handlerkit_bench)
        let center = try await SignalCenter.start(
            component: component, store: try SQLiteSignalStore(path: database), registry: registry)
        for await _ in Probe.allDelivered.stream { break }
        try await center.suspend(finishingWithin: .seconds(1))
        let first = Probe.progress.withLock { $0.first }
        print("first \(first)\n\(try memoryLines())")
        exit(0)
    }

    /// `--extension-baseline DB`: opens the database with plain GRDB and reads one row.
    static func readOneRow(database: String) async throws {
        let queue = try DatabaseQueue(path: database)
        let row = try queue.read { db in try Row.fetchOne(db, sql: "SELECT * FROM deliveries LIMIT 1") }
        let read = SignalsBenchmark.monotonicNanoseconds()
        guard row != nil else { throw BenchmarkFailure("the baseline read no row from \(database)") }
        print("first \(read)\n\(try memoryLines())")
        exit(0)
    }

    /// What the process's memory came to, from /proc/self/status: `rss`, the most it had resident
    /// (`VmHWM`), and `anon`, the part of what it has resident now that no file backs (`RssAnon`: the
    /// heap, stacks and other memory it wrote, where the rest is pages of the executable and
    /// libraries), in kB, as `<name> <kB>` lines.
    static func memoryLines() throws -> String {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        func kilobytes(_ field: String) throws -> UInt64 {
            for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
                if let value = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap({ UInt64($0) }) {
                    return value
                }
            }
            throw BenchmarkFailure("no \(field) line in /proc/self/status")
        }
        return "rss \(try kilobytes("VmHWM"))\nanon \(try kilobytes("RssAnon"))"
    }

    // MARK: The figures

    static func run(filter: String?) async throws {
        guard filter.map({ "extension.".hasPrefix($0) || $0.hasPrefix("extension.") }) ?? true else { return }
        let folder = FileManager.default.temporaryDirectory.appending(
            path: "handlerkit-bench-extension-\(UUID().uuidString)"
        )
        .path(percentEncoded: false)
        let template = folder + "/template"
        try FileManager.default.createDirectory(atPath: template, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try SpawnedProcess.run([setupFlag, template + "/signals.sqlite"])

        // Each process gets a copy of the store as the setup process left it; the two kinds alternate.
        var firstHandler: [Double] = []
        var lifetimes: [Double] = []
        var rss: [Double] = []
        var anon: [Double] = []
        var baselineRead: [Double] = []
        var baselineRSS: [Double] = []
        var baselineAnon: [Double] = []
        for index in 0..<processes {
            for baseline in [true, false] {
                let copy = folder + "/\(index)-\(baseline ? "baseline" : "extension")"
                try FileManager.default.copyItem(atPath: template, toPath: copy)
                let process = try SpawnedProcess.run([baseline ? baselineFlag : childFlag, copy + "/signals.sqlite"])
                let first = Double(try process.value("first") &- process.spawnedAt) / 1e6
                let peak = Double(try process.value("rss")) / 1024
                let written = Double(try process.value("anon")) / 1024
                if baseline {
                    baselineRead.append(first)
                    baselineRSS.append(peak)
                    baselineAnon.append(written)
                } else {
                    firstHandler.append(first)
                    lifetimes.append(Double(process.exitedAt &- process.spawnedAt) / 1e6)
                    rss.append(peak)
                    anon.append(written)
                }
                try FileManager.default.removeItem(atPath: copy)
            }
        }
        report("extension.baseline_first_read_ms", median(baselineRead), "ms")
        report("extension.first_handler_ms", median(firstHandler), "ms")
        report("extension.exit_ms", median(lifetimes), "ms")
        report("extension.baseline_peak_rss_mb", median(baselineRSS), "MB")
        report("extension.peak_rss_mb", median(rss), "MB")
        report("extension.baseline_rss_anon_mb", median(baselineAnon), "MB")
        report("extension.rss_anon_mb", median(anon), "MB")
        report("extension.suspend_resume_ms", try await suspendAndResume(folder: folder), "ms")
    }

    /// Milliseconds for one suspension and resumption of an idle center (delivering automatically, so
    /// its wake-up listener is closed and made again too): the median of 200 cycles.
    static func suspendAndResume(folder: String) async throws -> Double {
        let registry = HandlerRegistry()
        try registry.register(.handlerkit_bench)
        let center = try await SignalCenter.start(
            component: "bench-idle", store: try SQLiteSignalStore(path: folder + "/idle.sqlite"), registry: registry)
        _ = try await center.register(
            try Probe.receivedHandler(registry: registry), for: "bench.idle", delivery: .everyRevision)
        let clock = ContinuousClock()
        var cycles: [Double] = []
        for _ in 0..<200 {
            let start = clock.now
            try await center.suspend(finishingWithin: .seconds(1))
            let report = try await center.resume()
            cycles.append((clock.now - start).seconds * 1e3)
            guard !report.wasTakenOver else { throw BenchmarkFailure("the idle center's run was taken over") }
        }
        try await center.stop()
        return median(cycles)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func report(_ name: String, _ value: Double, _ unit: String) {
        print("\(name): \(String(format: "%.2f", value)) \(unit)")
    }
}
#else
extension ExtensionBudget {
    static func runChildIfAsked() async throws -> Bool { false }
    static func run(filter: String?) async throws {}
}
#endif
