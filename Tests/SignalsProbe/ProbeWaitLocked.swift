import Foundation
import GRDB
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit

/// `wait-locked`: stores waiting for a locked database hold no thread of Swift's cooperative pool.
///
///     wait-locked --db PATH --stores N --seconds S [--prefix P]
///
/// Starts N centers, each on a store of its own that waits up to 120 s for a lock. Then another
/// connection takes the database's write lock, and each center posts its signal (P0…P(N-1)). While
/// the lock is held, for S seconds, a task that sleeps 10 ms at a time counts its wake-ups and
/// prints `ticks <count>`. Then the lock is freed; once every post is written it prints
/// `posted <count>`. A store that waited in a thread of the pool (sleeping in SQLite's busy
/// handler) would stop the ticks while the lock is held. A process of its own, so that no other
/// work shares its pool.
enum WaitLockedProbe {
    /// Runs the `wait-locked` command; `false` for any other command.
    static func run(_ arguments: ProbeArguments) async throws -> Bool {
        guard arguments.command == "wait-locked" else { return false }
        let path = try arguments.string("db")
        let prefix = try arguments.string("prefix", default: "locked")
        var options = SQLiteSignalStore.Options()
        options.busyTimeout = .seconds(120)
        var centers: [SignalCenter] = []
        for _ in 0..<(try arguments.int("stores", default: 8)) {
            let store = try SQLiteSignalStore(path: path, options: options)
            centers.append(
                try await SignalCenter.start(
                    component: "app", store: store, options: .init(deliversAutomatically: false)))
        }
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let blocker = try DatabaseQueue(path: path, configuration: configuration)
        try await blocker.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }

        let posts = Task { [centers] in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, center) in centers.enumerated() {
                    group.addTask { _ = try await center.post(SignalID("\(prefix)\(index)"), payload: ["item": index]) }
                }
                try await group.waitForAll()
            }
        }
        let ticks = Locked(0)
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(10))
                ticks.withLock { $0 += 1 }
            }
        }
        try await Task.sleep(for: .seconds(try arguments.int("seconds", default: 5)))
        say("ticks \(ticks.withLock { $0 })")
        try await blocker.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        try await posts.value
        ticker.cancel()
        say("posted \(centers.count)")
        for center in centers { try await center.stop() }
        return true
    }
}
