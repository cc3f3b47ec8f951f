import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection
import SignalsTestSupport
import Testing

#if PostgreSQL
import HandlerKitSignalsPostgres
#endif

/// The stores side by side: seeded random sequences of operations (consumers registered and removed,
/// posts, deliveries whose handlers succeed or throw, processes that crash and are taken over,
/// suspensions, promises, dead deliveries requeued and discarded) run on the in-memory, SQLite and
/// PostgreSQL stores, and on the PostgreSQL store without its shortcuts (``StagesOnlyStore``), which
/// must show the same after every step. A difference is reported with the
/// seed that replays its sequence and the shortest sequence found that still makes the stores differ.
///
/// - `HANDLERKIT_DIFFERENTIAL_SEED`: the seed (decimal or `0x…` hexadecimal; `random` draws one) of
///   the first sequence; sequence `i` has seed `seed + i × 0x9E3779B97F4A7C15`, so the seed printed
///   for a failing sequence replays it alone with `HANDLERKIT_DIFFERENTIAL_RUNS=1`.
/// - `HANDLERKIT_DIFFERENTIAL_RUNS`: how many sequences (30); `HANDLERKIT_DIFFERENTIAL_OPERATIONS`:
///   operations per sequence (40).
///
/// Without a PostgreSQL server (`HANDLERKIT_POSTGRES_URL`, which `Scripts/with-postgres.sh` sets) it
/// compares the in-memory and SQLite stores only, and says so; under CI it fails without one, as
/// the other PostgreSQL tests do.
@Suite("Signals: the stores side by side, on random sequences")
struct DifferentialTests {
    static let defaultSeed: UInt64 = 0x5EED_D1FF_2026_0001
    static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15

    @Test func storesShowTheSameAfterEveryStep() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = try Self.seed(environment["HANDLERKIT_DIFFERENTIAL_SEED"])
        let sequences = try Self.count(environment, "HANDLERKIT_DIFFERENTIAL_RUNS", default: 30)
        let length = try Self.count(environment, "HANDLERKIT_DIFFERENTIAL_OPERATIONS", default: 40)
        let (kinds, note) = Self.storeKinds()
        if let note { print("differential: \(note)") }
        let runner = DifferentialRunner(kinds: kinds)

        var differing: [UInt64] = []
        var operations = 0
        for index in 0..<sequences {
            let sequenceSeed = seed &+ UInt64(index) &* Self.gamma
            var generator = DifferentialGenerator(seed: sequenceSeed)
            let settings = generator.settings()
            let sequence = generator.operations(length)
            operations += sequence.count
            guard let found = try await runner.run(sequence, settings) else { continue }
            differing.append(sequenceSeed)
            if differing.count > 1 {
                Issue.record(
                    "the stores differ after step \(found.step + 1) of the sequence of seed \(Self.hex(sequenceSeed))")
                continue
            }
            let confirmed = try await runner.run(sequence, settings) != nil
            let shrunk = try await runner.shrink(sequence, settings, found: found, budget: .seconds(240))
            Issue.record(
                Comment(
                    rawValue: Self.report(
                        seed: sequenceSeed, settings: settings, found: found, confirmed: confirmed, shrunk: shrunk)))
        }
        print(
            "differential: \(sequences) sequences, \(operations) operations, stores \(kinds.map(\.name).joined(separator: "/")), differences \(differing.count), seed \(Self.hex(seed))"
        )
    }

    static func report(
        seed: UInt64, settings: DifferentialSettings, found: DifferentialDivergence, confirmed: Bool,
        shrunk: (operations: [DifferentialOperation], divergence: DifferentialDivergence, runs: Int)
    ) -> String {
        var text =
            "the stores differ after step \(found.step + 1) (\(found.operation)) of the sequence of seed \(hex(seed)) (\(settings))"
        text += confirmed ? "; it differs again when run again" : "; it did NOT differ when run again (timing?)"
        text += "\nreplay: HANDLERKIT_DIFFERENTIAL_SEED=\(hex(seed)) HANDLERKIT_DIFFERENTIAL_RUNS=1"
        text += "\nshortest sequence found (\(shrunk.operations.count) operations, \(shrunk.runs) runs to shrink):\n"
        for (index, operation) in shrunk.operations.enumerated() { text += "  \(index + 1). \(operation)\n" }
        text += "after its last step the stores showed:\n" + shrunk.divergence.report
        return text
    }

    /// The stores compared, and a note when PostgreSQL is left out.
    static func storeKinds() -> ([DifferentialStoreKind], String?) {
        var kinds = [
            DifferentialStoreKind(name: "memory") { _ in (InMemorySignalStore(), {}) },
            DifferentialStoreKind(name: "sqlite") { folder in
                // The SQLite store the other signal tests open (`StoreKind.sqlite`).
                guard let store = try StoreKind.sqlite.open(folder) as? any InspectableSignalStore else {
                    throw SetupError(description: "the SQLite store of the tests is not an InspectableSignalStore")
                }
                return (store, {})
            },
        ]
        #if PostgreSQL
        guard PostgresTestServer.isExpected else {
            return (kinds, "comparing memory and sqlite only: \(PostgresTestServer.howToRun)")
        }
        kinds.append(
            DifferentialStoreKind(name: "postgres") { folder in
                // Runs are taken over when an operation asks, not by the store's own periodic look.
                let store = try PostgresTestServer.store(
                    folder: folder, options: .init(livenessCheckInterval: .seconds(3_600)))
                return (store, { await store.close() })
            })
        kinds.append(
            DifferentialStoreKind(name: "postgres-stages") { folder in
                let store = try PostgresTestServer.store(
                    folder: folder + "-stages", options: .init(livenessCheckInterval: .seconds(3_600)))
                return (StagesOnlyStore(store), { await store.close() })
            })
        return (kinds, nil)
        #else
        return (kinds, "comparing memory and sqlite only: built without the trait PostgreSQL")
        #endif
    }

    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    static func seed(_ text: String?) throws -> UInt64 {
        guard let text, !text.isEmpty else { return defaultSeed }
        if text == "random" { return UInt64.random(in: .min ... .max) }
        let parsed = text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        guard let parsed else {
            throw SetupError(
                description:
                    "HANDLERKIT_DIFFERENTIAL_SEED is '\(text)': give a decimal number, 0x and a hexadecimal one, or 'random'"
            )
        }
        return parsed
    }

    static func count(_ environment: [String: String], _ name: String, default value: Int) throws -> Int {
        guard let text = environment[name], !text.isEmpty else { return value }
        guard let count = Int(text), count > 0 else {
            throw SetupError(description: "\(name) is '\(text)': give a whole number above zero")
        }
        return count
    }

    static func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }
}
