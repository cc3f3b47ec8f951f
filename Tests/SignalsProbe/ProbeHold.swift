import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit

#if PostgreSQL
import HandlerKitSignalsPostgres
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `hold`: one host of the partition tests, on PostgreSQL:
///
///     hold --postgres URL --host ID --component C --log LOG --ready FILE --stop-file FILE [--go FILE]
///          [--signals N --prefix S --handler-ms MS] [--lease S] [--reconnect-for S] [--connection-timeout S]
///
/// Starts a run of C, registers N once consumers (signals S0…S(N-1), printed as `consumer <id>`)
/// whose handler writes `start <key> 0 <pid>` to LOG, sleeps MS milliseconds and writes
/// `end <key> 0 <pid>`, and creates FILE holding the run id. Then it delivers what is due every
/// 100 ms (from when the `--go` file exists, so that a test can post everything first and the run
/// claims it in one batch); the delivery's errors are printed as `problem <error>`. Meanwhile it
/// asks the store every 100 ms for the run's open deliveries and times the answers (`call failed
/// after <seconds> s: <error>` for each that fails). Once the stop file exists it waits for the
/// delivery in progress, stops the center and prints `stopped <seconds> ok` (or the error instead
/// of `ok`), the time from the stop file on, then `calls max <seconds>`, the longest answer. The
/// store logs to stderr.
enum PartitionProbe {
    /// A slow handler that records when it starts and when it returns.
    @handler
    static func slow(log: String, milliseconds: Int, deliveryKey: String) {
        ProbeLog.append(log, "start \(deliveryKey) 0 \(getpid())")
        if let hold = ProbeContext.holdFile {
            while !FileManager.default.fileExists(atPath: hold) { usleep(2_000) }
        }
        usleep(UInt32(max(0, milliseconds)) * 1000)
        ProbeLog.append(log, "end \(deliveryKey) 0 \(getpid())")
    }

    /// Runs the `hold` command; `false` for any other command.
    static func run(_ arguments: ProbeArguments) async throws -> Bool {
        guard arguments.command == "hold" else { return false }
        #if PostgreSQL
        var options = PostgresSignalStore.Options(
            hostID: arguments.values["host"] ?? ProcessInfo.processInfo.hostName,
            lease: .seconds(try arguments.int("lease", default: 30)))
        options.reconnectFor = .seconds(try arguments.int("reconnect-for", default: 60))
        options.connectionTimeout = .seconds(try arguments.int("connection-timeout", default: 10))
        let store = try PostgresSignalStore(url: try arguments.string("postgres"), options: options)
        try await hold(store: store, arguments)
        return true
        #else
        throw ProbeError("hold: this probe was built without the package trait PostgreSQL")
        #endif
    }

    private static func hold(store: any SignalStore, _ arguments: ProbeArguments) async throws {
        let log = try arguments.string("log")
        let stopFile = try arguments.string("stop-file")
        let center = try await SignalCenter.start(
            component: try arguments.string("component", default: "probe"), store: store,
            options: .init(deliversAutomatically: false))
        let prefix = try arguments.string("prefix", default: "s")
        let handler = try slowHandler(log: log, milliseconds: try arguments.int("handler-ms", default: 0))
        for index in 0..<(try arguments.int("signals", default: 0)) {
            say("consumer \(try await center.register(handler, for: SignalID("\(prefix)\(index)")))")
        }
        _ = FileManager.default.createFile(atPath: try arguments.string("ready"), contents: Data(center.runID.utf8))
        let go = arguments.values["go"]
        let stopping = Locked(false)
        let delivering = Task {
            while let go, !FileManager.default.fileExists(atPath: go), !stopping.withLock({ $0 }) {
                try? await Task.sleep(for: .milliseconds(20))
            }
            while !stopping.withLock({ $0 }) {
                do {
                    try await center.deliverDue()
                } catch {
                    say("problem \(error)")
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        let measuring = Task {
            var longest = Duration.zero
            while !stopping.withLock({ $0 }) {
                let start = ContinuousClock.now
                do {
                    _ = try await center.openDeliveries()
                } catch {
                    say("call failed after \(seconds(start.duration(to: .now))) s: \(error)")
                }
                longest = max(longest, start.duration(to: .now))
                try? await Task.sleep(for: .milliseconds(100))
            }
            return longest
        }
        while !FileManager.default.fileExists(atPath: stopFile) { try await Task.sleep(for: .milliseconds(20)) }
        let stoppingAt = ContinuousClock.now
        stopping.withLock { $0 = true }
        await delivering.value
        var outcome = "ok"
        do {
            try await center.stop()
        } catch {
            outcome = "\(error)"
        }
        say("stopped \(seconds(stoppingAt.duration(to: .now))) \(outcome)")
        say("calls max \(seconds(await measuring.value))")
    }

    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.2f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
