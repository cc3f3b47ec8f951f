// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL && canImport(Glibc)
import Foundation
import Glibc
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsPostgres
import HandlerKitSignalsTestKit
import SignalsTestSupport
import Testing

/// Centers started while their server restarts: stopped and started again, or killed with SIGKILL
/// and started again, at random moments of the start. Each start either succeeds or fails only
/// once the server has been unreachable for `reconnectFor`, with an error that says why: a TLS
/// handshake or session the restarting server drops is retried like any lost connection.
@Suite(
    "Signals on PostgreSQL: centers started while the server restarts", .serialized,
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresRestartingStartTests {
    let folder = TemporaryFolder()

    /// `HANDLERKIT_RESTART_SEED` repeats a run; `HANDLERKIT_RESTART_STARTS` changes the count (50).
    @Test func everyStartSucceedsOrFailsOnlyAfterReconnectFor() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["HANDLERKIT_RESTART_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...999_999)
        let starts = environment["HANDLERKIT_RESTART_STARTS"].flatMap { Int($0) } ?? 50
        print("postgres.restart_starts seed=\(seed) (HANDLERKIT_RESTART_SEED=\(seed) repeats this run)")
        var random = SeededRandom(seed: seed)
        let own = try await PrivateServer.start(folder: folder.path)
        defer { own.stop() }
        let reconnectFor = Duration.seconds(10)
        let options = PostgresSignalStore.Options(reconnectFor: reconnectFor, connectionTimeout: .seconds(2))
        let url = own.url + "?schema=restarts"
        // The schema is made before the faults begin, with time to spare on a loaded machine: what is
        // tested is the starts below.
        let first = try PostgresSignalStore(
            url: url, options: .init(reconnectFor: .seconds(120), connectionTimeout: .seconds(30)))
        try await SignalCenter.start(component: "app", store: first, options: .init(deliversAutomatically: false))
            .stop()
        await first.close()

        var succeeded = 0
        var failedEarly: [String] = []
        var failedAfter = 0
        var kills = 0
        for index in 0..<starts {
            let kill = Bool.random(using: &random)
            let delay = Duration.milliseconds(Int.random(in: 0...200, using: &random))
            let downtime = Duration.milliseconds(Int.random(in: 0...1_500, using: &random))
            let store = try PostgresSignalStore(url: url, options: options)
            let begun = ContinuousClock.now
            // How long the start took is measured when it ends, not when the server is back.
            let starting = Task { () -> (Result<SignalCenter, any Error>, Duration) in
                do {
                    let center = try await SignalCenter.start(
                        component: "app", store: store, options: .init(deliversAutomatically: false))
                    return (.success(center), begun.duration(to: .now))
                } catch {
                    return (.failure(error), begun.duration(to: .now))
                }
            }
            try await Task.sleep(for: delay)
            if kill {
                try own.killServer()
                kills += 1
            } else {
                try await own.run("stop")
            }
            try await Task.sleep(for: downtime)
            try await own.startAgain()
            let (result, waited) = await starting.value
            switch result {
            case .success(let center):
                succeeded += 1
                try await center.stop()
            case .failure(let error):
                let text = "start \(index) (\(kill ? "SIGKILL" : "stop") after \(delay), down \(downtime)): \(error)"
                if waited < reconnectFor {
                    print("postgres.restart_starts failed early, after \(waited): \(text)")
                    failedEarly.append("\(text) after \(waited)")
                } else {
                    failedAfter += 1
                    print("postgres.restart_starts failed after \(waited): \(text)")
                    guard case .storeUnavailable(_, let reason)? = error as? SignalError else {
                        Issue.record("a start failed with another error than storeUnavailable: \(text)")
                        break
                    }
                    #expect(reason.contains("Options.reconnectFor") && reason.contains("unreachable for"), "\(text)")
                }
            }
            await store.close()
        }
        print(
            "postgres.restart_starts seed=\(seed) starts=\(starts) kills=\(kills) succeeded=\(succeeded) failed_early=\(failedEarly.count) failed_after_reconnectFor=\(failedAfter)"
        )
        #expect(failedEarly.isEmpty, "starts that failed before reconnectFor:\n\(failedEarly.joined(separator: "\n"))")
        #expect(succeeded + failedAfter + failedEarly.count == starts)
    }
}

extension PrivateServer {
    /// The folder of the server's data directory, its TLS certificates and its log.
    var root: String { URL(fileURLWithPath: data).deletingLastPathComponent().path }

    /// `pg_ctl ACTION` as the server's user, off the cooperative pool (the command blocks); for
    /// `start`, with the options (TLS included) the server was first started with.
    func run(_ action: String) async throws {
        let port = URLComponents(string: url)?.port ?? 0
        let options =
            "-c listen_addresses=127.0.0.1 -c port=\(port) -c unix_socket_directories= -c fsync=off -c max_connections=200"
            + " -c ssl=on -c ssl_cert_file=\(root)/tls/server.crt -c ssl_key_file=\(root)/tls/server.key"
        let command =
            (user.isEmpty ? [] : ["/usr/sbin/runuser", "-u", user, "--"])
            + [pgctl, "-D", data, "-l", root + "/server.log", "-w", "-t", "60", "-m", "fast"]
            + (action == "start" ? ["-o", options, "start"] : [action])
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            DispatchQueue.global().async { continuation.resume(returning: Self.spawnAndWait(command)) }
        }
        guard status == 0 else { throw Probe.Failure(description: "pg_ctl \(action) exited with \(status)") }
    }

    /// Kills the server's postmaster with SIGKILL (its backends end when they notice).
    func killServer() throws {
        let pidFile = (try? String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8)) ?? ""
        guard let line = pidFile.split(separator: "\n").first, let pid = pid_t(line), pid > 0 else {
            throw Probe.Failure(description: "no postmaster.pid in \(data) to kill the server by")
        }
        guard Glibc.kill(pid, SIGKILL) == 0 else {
            throw Probe.Failure(description: "kill -9 \(pid) failed: errno \(errno)")
        }
    }

    /// Starts the server again. After a SIGKILL its former backends may still hold its shared
    /// memory for a moment, and the start is refused: it is tried again for up to a minute.
    func startAgain() async throws {
        let until = ContinuousClock.now + .seconds(60)
        while true {
            do {
                return try await run("start")
            } catch {
                guard ContinuousClock.now < until else { throw error }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}
#endif
