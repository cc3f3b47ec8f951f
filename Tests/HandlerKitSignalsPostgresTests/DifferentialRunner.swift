import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection
import SignalsTestSupport

/// A kind of store a differential sequence runs on.
struct DifferentialStoreKind: Sendable {
    /// What it is called in reports (`memory`, `sqlite`, `postgres`, `postgres-stages`).
    var name: String
    /// Opens a new, empty store whose files (if any) live in `folder`, and what closes it.
    var open: @Sendable (_ folder: String) async throws -> (any InspectableSignalStore, @Sendable () async -> Void)
}

/// Runs sequences of operations on every kind of store side by side, on fresh stores each time, and
/// shrinks a sequence after which they differ to a shortest one that still makes them differ.
struct DifferentialRunner: Sendable {
    let kinds: [DifferentialStoreKind]

    /// Runs `operations` on a fresh store of each kind, comparing what they show after every step
    /// with what the first kind shows; the first step after which they differ, or `nil`.
    func run(
        _ operations: [DifferentialOperation], _ settings: DifferentialSettings
    ) async throws -> DifferentialDivergence? {
        var folders: [TemporaryFolder] = []
        var worlds: [DifferentialWorld] = []
        for kind in kinds {
            let folder = TemporaryFolder()
            folders.append(folder)
            let (store, close) = try await kind.open(folder.path)
            worlds.append(
                try DifferentialWorld(
                    storeName: kind.name, store: store, folder: folder.path, settings: settings, close: close))
        }
        var divergence: DifferentialDivergence?
        for (step, operation) in operations.enumerated() {
            // What a failed attempt left due later is due in every store when the step begins.
            if settings.retryDelay > .zero { try await Task.sleep(for: settings.retryDelay * 3) }
            let observations = await withTaskGroup(of: (Int, DifferentialObservation).self) { group in
                for (index, world) in worlds.enumerated() {
                    group.addTask {
                        let answer = await world.apply(operation)
                        return (index, await world.observe(answer: answer))
                    }
                }
                var found = [DifferentialObservation](repeating: DifferentialObservation(), count: worlds.count)
                for await (index, observation) in group { found[index] = observation }
                return found
            }
            if Set(observations).count > 1 {
                divergence = DifferentialDivergence(
                    step: step, operation: operation,
                    observations: zip(kinds, observations).map { ($0.name, $1) })
                break
            }
        }
        for world in worlds { await world.finish() }
        _ = folders
        return divergence
    }

    /// The shortest sequence found that still makes the stores differ in one of the fields `found`
    /// names: parts of `operations` are removed, halves first and then smaller ones down to single
    /// operations, each candidate run on fresh stores. Gives up shrinking further after `budget`.
    func shrink(
        _ operations: [DifferentialOperation], _ settings: DifferentialSettings, found: DifferentialDivergence,
        budget: Duration
    ) async throws -> (operations: [DifferentialOperation], divergence: DifferentialDivergence, runs: Int) {
        let fields = Set(found.fields)
        var current = Array(operations.prefix(found.step + 1))
        var divergence = found
        var runs = 0
        let deadline = ContinuousClock.now + budget
        var chunk = max(1, current.count / 2)
        shrinking: while true {
            var start = 0
            var removed = false
            while start < current.count {
                if ContinuousClock.now >= deadline { break shrinking }
                var candidate = current
                candidate.removeSubrange(start..<min(start + chunk, current.count))
                runs += 1
                if !candidate.isEmpty, let again = try await run(candidate, settings),
                    !fields.isDisjoint(with: again.fields)
                {
                    current = Array(candidate.prefix(again.step + 1))
                    divergence = again
                    removed = true
                } else {
                    start += chunk
                }
            }
            if !removed {
                if chunk == 1 { break }
                chunk /= 2
            }
            chunk = min(chunk, max(1, current.count / 2))
        }
        return (current, divergence, runs)
    }
}
