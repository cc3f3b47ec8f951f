import Foundation

/// `order.` (SQLite) and `order_pg.` (PostgreSQL, through Scripts/with-postgres.sh): what ordering
/// keys cost a work queue. Two worker processes (up to 4 handlers at once each) drain 20,000 jobs
/// bulk-posted before they start, as `queue.`'s `throughput_2_workers_per_s` does: once without keys
/// (`throughput_unordered_per_s`), once with each job's ordering key one of 1,000
/// (`throughput_1000_keys_per_s`: 20 jobs a key, each key's run one at a time, in order), in three
/// interleaved rounds, the best of each; then the second as a multiple of the first
/// (`ordered_vs_unordered`).
enum OrderBenchmark {
    static let keys = 1_000
    static let workers = 2

    static func run(filter: String?) async throws {
        if filter.map({ "order.".hasPrefix($0) || $0.hasPrefix("order.") }) ?? true {
            let folder = FileManager.default.temporaryDirectory.appending(path: "order-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try await measure("order") { round, keys in
                folder.appending(path: "\(round)-\(keys ?? 0).sqlite").path(percentEncoded: false)
            }
        }
        if let filter, filter.hasPrefix("order_pg") {
            guard let url = ProcessInfo.processInfo.environment["HANDLERKIT_POSTGRES_URL"] else {
                print("order_pg.: HANDLERKIT_POSTGRES_URL is not set; run it through Scripts/with-postgres.sh")
                return
            }
            try await measure("order_pg") { _, _ in
                SignalsBenchmark.postgresURL(url, schema: "order_bench_\(UUID().uuidString.prefix(8).lowercased())")
            }
        }
    }

    /// Prints the figures under `prefix`, each round's store made by `store` (from the round and the
    /// number of keys, `nil` for none).
    static func measure(_ prefix: String, store: (Int, Int?) -> String) async throws {
        var (unordered, ordered) = (0.0, 0.0)
        for round in 0..<3 {
            unordered = max(
                unordered,
                try await QueueBenchmark.throughput(
                    workers: workers, posting: .before, store: store(round, nil)))
            ordered = max(
                ordered,
                try await QueueBenchmark.throughput(
                    workers: workers, posting: .before, store: store(round, keys), orderingKeys: keys))
        }
        print("\(prefix).throughput_unordered_per_s: \(String(format: "%.0f", unordered)) jobs/s")
        print("\(prefix).throughput_\(keys)_keys_per_s: \(String(format: "%.0f", ordered)) jobs/s")
        print("\(prefix).ordered_vs_unordered: \(String(format: "%.2f", ordered / max(unordered, 1))) x")
    }
}
