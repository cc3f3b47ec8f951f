// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL && canImport(Glibc)
import Foundation
import Glibc
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsPostgres
import Logging
import SignalsTestSupport
import TestWaiting
import Testing

/// A server that is down when a center starts (the start waits for it like every other call, for
/// `reconnectFor`), and what the store logs when the server ends its connections.
@Suite(
    "Signals on PostgreSQL: starting while the server is down, and what the store logs", .serialized,
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresOutageTests {
    let folder = TemporaryFolder()

    @Test func aCenterStartedWhileTheServerIsDownStartsOnceItIsBack() async throws {
        let own = try await PrivateServer.start(folder: folder.path)
        defer { own.stop() }
        try own.control("stop")
        // reconnectFor is generous: a server that takes long to start on a loaded machine still
        // comes back within it. What is checked is that the start waited for it and then succeeded.
        let store = try PostgresSignalStore(
            url: own.url + "?schema=outage", options: .init(reconnectFor: .seconds(600), connectionTimeout: .seconds(2))
        )
        let begun = ContinuousClock.now
        let starting = Task {
            try await SignalCenter.start(component: "app", store: store, options: .init(deliversAutomatically: false))
        }
        try await Task.sleep(for: .seconds(3))
        try own.control("start")
        let center = try await starting.value
        let waited = begun.duration(to: .now)
        #expect(waited >= .seconds(3), "started only once the server was back: \(waited)")
        #expect(try await center.post("after", ifUnconsumed: .keep(for: .seconds(60))).kept)
        try await center.stop()
        await store.close()
    }

    @Test func aCenterStartedWhileTheServerStaysDownFailsAfterReconnectFor() async throws {
        let own = try await PrivateServer.start(folder: folder.path)
        defer { own.stop() }
        try own.control("stop")
        let store = try PostgresSignalStore(
            url: own.url + "?schema=outage", options: .init(reconnectFor: .seconds(3), connectionTimeout: .seconds(2)))
        let begun = ContinuousClock.now
        let error = await #expect(throws: SignalError.self) {
            _ = try await SignalCenter.start(component: "app", store: store)
        }
        let waited = begun.duration(to: .now)
        // Gave up once reconnectFor (3 s) and the last connection's timeout (2 s) were over, not later:
        // the slack beyond them is for a loaded machine (TestWait's scale), it is no speed requirement.
        #expect(
            waited >= .seconds(3) && waited < .seconds(3 + 2) + TestWait.bound(.seconds(2)),
            "gave up after reconnectFor: \(waited)")
        guard case .storeUnavailable(_, let reason)? = error else {
            Issue.record("expected storeUnavailable, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("cannot reach the PostgreSQL server at 127.0.0.1:"), "\(reason)")
        #expect(reason.contains("Connection refused"), "\(reason)")
        await store.close()
    }

    /// The server ends the store's connections (an operator's `pg_terminate_backend`): the store logs
    /// what the server said (its message and SQLSTATE 57P01), never postgres-nio's placeholder.
    @Test func theStoreLogsWhatTheServerSaid() async throws {
        let messages = RecordedMessages()
        var options = PostgresSignalStore.Options(heartbeatInterval: .milliseconds(200))
        options.logger = Logger(label: "test") { _ in RecordingLogHandler(messages: messages) }
        let store = try PostgresTestServer.store(folder: folder.path, options: options)
        let center = try await SignalCenter.start(component: "app", store: store)
        let schema = PostgresTestServer.schema(for: folder.path)
        try await TestWait.until("the center's wake-up connection to listen") {
            try await PostgresTestServer.selectInteger(
                "count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN%\(schema)_wake%'") ?? 0 > 0
        }
        try await PostgresTestServer.psql(
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE query LIKE 'LISTEN%\(schema)_wake%' OR pid IN (SELECT backend_pid FROM \(schema).runs)
            """)
        // Several connections end (the run's, the wake-up's, pooled ones), each logged on its own path:
        // wait for the server's words, not for the first line that names the SQLSTATE.
        let said = "terminating connection due to administrator command (SQLSTATE 57P01)"
        await TestWait.expect(
            "the store to log the server's words", every: .milliseconds(50), seen: { "\(messages.all)" }
        ) {
            messages.all.contains(where: { $0.contains(said) })
        }
        let all = messages.all
        #expect(all.contains { $0.contains(said) }, "\(all)")
        #expect(!all.contains { $0.contains("Generic description") }, "\(all)")
        try await center.stop()
        await store.close()
    }
}

/// The messages a logger was given, in order.
final class RecordedMessages: Sendable {
    private let messages = Locked<[String]>([])
    var all: [String] { messages.withLock { $0 } }
    func append(_ message: String) { messages.withLock { $0.append(message) } }
}

struct RecordingLogHandler: LogHandler {
    let messages: RecordedMessages
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = "\(event.level): \(event.message)"
        if let metadata = event.metadata, !metadata.isEmpty { line += " \(metadata)" }
        messages.append(line)
    }
}

extension PrivateServer {
    /// `pg_ctl stop -m fast` or `pg_ctl start` on the server's port (as the server's user).
    func control(_ action: String) throws {
        let port = URLComponents(string: url)?.port ?? 0
        let command =
            (user.isEmpty ? [] : ["/usr/sbin/runuser", "-u", user, "--"])
            + [pgctl, "-D", data, "-l", data + "/../server.log", "-w", "-m", "fast"]
            + (action == "start"
                ? [
                    "-o", "-c listen_addresses=127.0.0.1 -c port=\(port) -c unix_socket_directories= -c fsync=off",
                    "start",
                ]
                : [action])
        let status = Self.spawnAndWait(command)
        guard status == 0 else { throw Probe.Failure(description: "pg_ctl \(action) exited with \(status)") }
    }
}
#endif
