import Foundation
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsSQLite

/// The `extension.*` figures: what a short-lived process (an app extension woken for a moment) pays
/// to start a center on an existing store, take over a run that is gone, deliver its 100 deliveries,
/// suspend and exit, beside a process that only opens the same database with plain GRDB and reads one
/// row. Both are the executable `handlerkit-bench-extension` (built with this one), which links only
/// what such an extension links; each runs on its own copy of one prepared store (made by its
/// `--setup`).
enum ExtensionBudget {
    /// Processes of each kind; the figures are their medians.
    static let processes = 15
    /// The executable of the timed processes, next to this one.
    static let executableName = "handlerkit-bench-extension"
}

// Spawning and the peak resident memory are measured the Linux way (`posix_spawn` with `environ`,
// /proc/self/status); elsewhere the figures are not printed.
#if os(Linux)
extension ExtensionBudget {
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
        let own = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        let executable = own.deletingLastPathComponent().appending(path: executableName).path(percentEncoded: false)
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            print(
                "extension.: \(executable) is missing; build it with `swift build -c release --product \(executableName)`"
            )
            return
        }
        _ = try SpawnedProcess.run(["--setup", template + "/signals.sqlite"], executable: executable)

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
                let process = try SpawnedProcess.run(
                    [baseline ? "--baseline" : "--extension", copy + "/signals.sqlite"], executable: executable)
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
            try SignalsBenchmark.Probe.countedHandler(registry: registry), for: "bench.idle",
            delivery: .everyRevision)
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
    static func run(filter: String?) async throws {}
}
#endif
