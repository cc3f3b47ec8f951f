import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit
import TestWaiting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Durable promises across real processes: one process settles promises one after another while
/// the processes awaiting them are killed with SIGKILL at random moments and started again. Each
/// settlement must be consumed exactly once, by a waiting process or by the fallback handler.
package struct PromiseScenarios {
    package init() {}

    let folder = TemporaryFolder()
    var log: String { folder.path + "/promises.log" }

    func probe(_ kind: StoreKind, _ arguments: [String]) async throws -> Probe.Outcome {
        try await Probe.run(arguments + kind.probeArguments(folder.path), folder: folder.path)
    }

    /// `settlements` promises of component `app`, settled by component `ext` in chunks of 5 to 15
    /// (pausing `pause` ms between settlements); during each chunk a waiting `app` process is killed a
    /// random time in `killAfter` (ms) after it began to await, except that every fifth chunk is
    /// settled after its waiter was killed, while no process awaits. Then an `app` process delivers
    /// what is left. Returns the probe's `promise.kill_test` line.
    @discardableResult
    package func killedWaitersConsumeEverySettlementOnce(
        kind: StoreKind, settlements: Int = 240, pause: Int = 20, killAfter: ClosedRange<Int> = 0...400
    ) async throws -> String {
        let made = try await probe(
            kind, ["promise-make", "--component", "app", "--log", log, "--promises", "\(settlements)"])
        #expect(made.status == 0, "\(made.output)")
        var random = SeededRandom(seed: 2_026)
        var kills = 0
        var waiters = 0
        var settled = 0
        while settled < settlements {
            let output = folder.path + "/wait-\(waiters).out"
            let waiter = try Probe.start(
                ["promise-wait", "--component", "app", "--log", log, "--promises", "\(settlements)"]
                    + kind.probeArguments(folder.path), output: output)
            waiters += 1
            // The random time runs from when the process awaits (a loaded machine starts it slowly).
            let said = { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
            await TestWait.expect("waiter \(waiters) to await its promises", seen: { said() }) {
                !waiter.isRunning || said().contains("awaiting")
            }
            let end = min(settlements, settled + Int.random(in: 5...15, using: &random))
            // Every fifth chunk is settled while no process awaits it, so the fallback path runs
            // whatever the machine's timing makes of the random kills.
            if waiters % 5 == 0, waiter.isRunning {
                kill(waiter.processIdentifier, SIGKILL)
                kills += 1
                await Probe.finish(waiter)
            }
            let settlerOutput = folder.path + "/settle-\(waiters).out"
            let settler = try Probe.start(
                [
                    "promise-settle", "--component", "ext", "--from", "\(settled)", "--promises", "\(end)",
                    "--pause-ms", "\(pause)",
                ] + kind.probeArguments(folder.path), output: settlerOutput)
            // The random time runs from when the settler settles (it too starts slowly when loaded).
            let settling = { (try? String(contentsOfFile: settlerOutput, encoding: .utf8)) ?? "" }
            await TestWait.expect("settler \(waiters) to settle", seen: { settling() }) {
                !settler.isRunning || settling().contains("settling")
            }
            let until = ContinuousClock.now + .milliseconds(Int.random(in: killAfter, using: &random))
            while waiter.isRunning && ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(2)) }
            if waiter.isRunning {
                kill(waiter.processIdentifier, SIGKILL)
                kills += 1
            }
            await Probe.finish(waiter)
            await Probe.finish(settler)
            #expect(
                settler.terminationStatus == 0,
                "\((try? String(contentsOfFile: settlerOutput, encoding: .utf8)) ?? "")")
            settled = end
        }
        #expect(kills >= 10, "waiting processes killed: \(kills)")
        let drained = try await probe(kind, ["promise-drain", "--component", "app"])
        #expect(drained.status == 0, "\(drained.output)")
        let checked = try await probe(
            kind,
            [
                "promise-check", "--log", log, "--promises", "\(settlements)", "--kills", "\(kills)",
                "--store-name", kind.name,
            ])
        #expect(checked.status == 0, "\(checked.output)")
        let line = checked.lines.first { $0.hasPrefix("promise.kill_test") }.map(String.init) ?? checked.output
        print(line)
        #expect(line.contains(" twice=0 "), "\(checked.output)")
        #expect(line.contains(" never=0 "), "\(checked.output)")
        #expect(line.contains(" unsettled=0 "), "\(checked.output)")
        #expect(!line.contains(" by_waiter=0 "), "some settlements reach a waiting process: \(line)")
        #expect(!line.contains(" by_fallback=0 "), "some settlements reach the fallback: \(line)")
        return line
    }

    /// A promise bound to a `@handler` as an argument, stored as JSON and rebuilt: the handler
    /// fulfils it and the waiting task receives the value.
    package func promiseBoundToAHandler(kind: StoreKind) async throws {
        let outcome = try await probe(kind, ["promise-bind", "--component", "app"])
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.lines.contains("bound 42"), "\(outcome.output)")
    }
}
