import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// Stores waiting for a database another connection keeps locked hold no thread of Swift's cooperative
/// pool: the rest of the app goes on running.
@Suite("Signals: SQLite store and the cooperative pool")
struct SQLiteCooperativePoolTests {
    let folder = TemporaryFolder()
    let recorder = Recorder()
    let registry: HandlerRegistry
    var path: String { folder.path + "/signals.sqlite" }

    init() throws { registry = try makeRegistry(recorder) }

    /// Stores (four times the pool's threads) wait to post while another connection holds the write
    /// lock for five seconds; a task that ticks every 10 ms keeps ticking. A store that waited in a
    /// pool thread (sleeping in SQLite's busy handler) would stop the ticks until the lock is freed.
    /// Measured in a probe process of its own: the suites running in this process share its pool.
    @Test func storesWaitingOnALockedDatabaseDoNotStopOtherTasks() async throws {
        let setup = try await manualCenter("app", store: try SQLiteSignalStore(path: path), registry: registry)
        let waiting = max(8, 4 * ProcessInfo.processInfo.activeProcessorCount)
        for index in 0..<waiting {
            _ = try await setup.register(
                try Handler(id: "Sink.receive", registry: registry), for: SignalID("locked\(index)"))
        }
        let outcome = try await Probe.run(
            ["wait-locked", "--db", path, "--stores", "\(waiting)", "--seconds", "5", "--prefix", "locked"],
            folder: folder.path)
        #expect(outcome.status == 0, "\(outcome.output)")
        let ticks = outcome.lines.first { $0.hasPrefix("ticks ") }.flatMap { Int($0.dropFirst("ticks ".count)) }
        // Five seconds of 10 ms sleeps are up to 500 ticks; a pool whose threads all sleep in SQLite's
        // busy handler gives none. Ten tells "ran" from "never ran" on a loaded machine.
        #expect((ticks ?? 0) >= 10, "the other task ticked \(ticks.map(String.init) ?? "no") times: \(outcome.output)")
        #expect(outcome.lines.contains("posted \(waiting)"), "\(outcome.output)")
        #expect(try await setup.deliverDue() == waiting, "every waiting post was written once the lock was freed")
        try await setup.stop()
    }
}
