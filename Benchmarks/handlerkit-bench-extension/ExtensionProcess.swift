import Foundation
import GRDB
import HandlerKit
import HandlerKitSignals
import HandlerKitSignalsSQLite

#if canImport(Glibc)
import Glibc
#endif

/// What each process of `handlerkit-bench extension.` does (see main.swift).
enum ExtensionProcess {
    enum Mode: String {
        case setup = "--setup"
        case `extension` = "--extension"
        case baseline = "--baseline"
    }

    static let component = "bench-extension"
    static let signal: SignalID = "bench.extension"
    static let deliveries = 100

    static func run(_ mode: Mode, database: String) async throws {
        switch mode {
        case .setup: try await setUp(database: database)
        case .extension: try await deliver(database: database)
        case .baseline: try readOneRow(database: database)
        }
    }

    /// Registers a durable consumer, posts 100 revisions to it, and exits without stopping, so that
    /// the store holds 100 deliveries of a run that is gone.
    static func setUp(database: String) async throws {
        let registry = HandlerRegistry()
        try registry.register(.handlerkit_bench_extension)
        let center = try await SignalCenter.start(
            component: component, store: try SQLiteSignalStore(path: database), registry: registry,
            options: .init(deliversAutomatically: false))
        _ = try await center.register(
            try Probe.receivedHandler(registry: registry), for: signal, delivery: .everyRevision)
        for index in 0..<deliveries { _ = try await center.post(signal, payload: ["index": index]) }
        exit(0)
    }

    /// What an extension does when woken: starts its center (taking over the run that is gone),
    /// delivers, suspends (as it would before iOS suspends it), and exits. Prints when the first
    /// handler started and the process's memory.
    static func deliver(database: String) async throws {
        let registry = HandlerRegistry()
        try registry.register(.handlerkit_bench_extension)
        let center = try await SignalCenter.start(
            component: component, store: try SQLiteSignalStore(path: database), registry: registry)
        for await _ in Probe.allDelivered.stream { break }
        try await center.suspend(finishingWithin: .seconds(1))
        let first = Probe.progress.withLock { $0.first }
        print("first \(first)\n\(try memoryLines())")
    }

    /// Opens the database with plain GRDB and reads one row.
    static func readOneRow(database: String) throws {
        let queue = try DatabaseQueue(path: database)
        let row = try queue.read { db in try Row.fetchOne(db, sql: "SELECT * FROM deliveries LIMIT 1") }
        let read = monotonicNanoseconds()
        guard row != nil else { throw ExtensionProcessFailure("the baseline read no row from \(database)") }
        print("first \(read)\n\(try memoryLines())")
    }

    /// The handler the extension process delivers.
    enum Probe {
        /// Notes when the first delivery started and when the last one ran.
        @handler
        static func received(index: Int) {
            let now = monotonicNanoseconds()
            let count = progress.withLock { progress in
                if progress.first == 0 { progress.first = now }
                progress.count += 1
                return progress.count
            }
            if count == ExtensionProcess.deliveries { allDelivered.continuation.yield() }
        }

        static let progress = Locked((first: UInt64(0), count: 0))
        static let allDelivered = AsyncStream<Void>.makeStream()
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
            throw ExtensionProcessFailure("no \(field) line in /proc/self/status")
        }
        return "rss \(try kilobytes("VmHWM"))\nanon \(try kilobytes("RssAnon"))"
    }

    /// `CLOCK_MONOTONIC` in nanoseconds: the clock the parent reads at the spawn.
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

struct ExtensionProcessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
