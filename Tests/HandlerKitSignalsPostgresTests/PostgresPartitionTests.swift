// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL && canImport(Glibc)
import Foundation
import Glibc
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsPostgres
import HandlerKitSignalsTestKit
import SignalsTestSupport
import TestWaiting
import Testing

/// A host cut off from the server while it holds claims (its link taken down, in network
/// namespaces: Scripts/netns-postgres.sh) or stopped (SIGSTOP): another host of the component takes
/// its deliveries over after the lease and completes them; the cut-off host, back, must start none
/// of them again and must report that it was taken over; its store calls and its `stop()` end
/// within their bounds while it is cut off. Each scenario prints a figure line.
@Suite(
    "Signals on PostgreSQL: a host cut off or stopped while it holds claims", .serialized,
    .disabled(if: !PostgresTestServer.isExpected, Comment(rawValue: PostgresTestServer.howToRun)))
struct PostgresPartitionTests {
    let folder = TemporaryFolder()
    var log: String { folder.path + "/handlers.log" }

    static let deliveries = 12
    static let lease = 5
    static let connectionTimeout = 2
    /// Longer than the cut: host 1's calls span it and answer once the link is back.
    static let reconnectFor = 30

    /// The hosts' processes, started by a scenario in its own way.
    typealias StartHost = (_ host: Int, _ arguments: [String], _ output: String) throws -> Process

    /// What a scenario counted.
    struct Figures {
        var completedByHost2 = 0
        /// Completed by host 1 before it was cut off: the handler it had started when the test cut
        /// it off may return first (it takes 400 ms; a loaded machine may take longer to cut).
        var completedByHost1 = 0
        /// The handlers host 1 started before it was cut off (it cannot start one while cut off, and
        /// its run is taken over when it is back).
        var startedByHost1BeforeTheCut = 0
        var lost = 0
        var completedTwice = 0
        var startedAfterCompletion = 0
        var host1CallMax = 0.0
        var host1Output = ""

        func line(_ name: String) -> String {
            "\(name): deliveries \(PostgresPartitionTests.deliveries), completed by host 2 \(completedByHost2), by host 1 before the cut \(completedByHost1), lost \(lost), completed twice \(completedTwice), started after completion \(startedAfterCompletion), host 1 call max \(String(format: "%.1f", host1CallMax)) s"
        }
    }

    @Test(
        .disabled(
            if: NamespacedServer.unavailableReason != nil,
            Comment(rawValue: "partition tests: \(NamespacedServer.unavailableReason ?? "")")))
    func aHostCutOffTheNetworkStartsNoDeliveryCompletedElsewhere() async throws {
        try await NamespacedServer.with(folder: folder.path) { server in
            let figures = try await scenario(
                localURL: server.url(host: 0, schema: "partition"),
                hostURL: { server.url(host: $0, schema: "partition") },
                start: { host, arguments, output in try server.startProbe(host: host, arguments, output: output) },
                cutOff: { _ in try server.setHost1Link(up: false) },
                reconnect: { _ in try server.setHost1Link(up: true) })
            print(figures.line("pg.partition"))
            check(figures)
        }
    }

    @Test func aStoppedHostStartsNoDeliveryCompletedElsewhere() async throws {
        let url = try PostgresTestServer.url(folder: folder.path)
        let figures = try await scenario(
            localURL: url, hostURL: { _ in url },
            start: { _, arguments, output in try Probe.start(arguments, output: output) },
            cutOff: { kill($0.processIdentifier, SIGSTOP) },
            reconnect: { kill($0.processIdentifier, SIGCONT) })
        print(figures.line("pg.sigstop"))
        check(figures)
    }

    /// While host 1 is cut off for longer than `reconnectFor`, each of its store calls ends within
    /// `reconnectFor` plus `connectionTimeout`, and its `stop()` within the bound its options document,
    /// told to stop `stopAfter` seconds into the cut: while its calls still try, or once they gave up.
    @Test(
        .disabled(
            if: NamespacedServer.unavailableReason != nil,
            Comment(rawValue: "partition tests: \(NamespacedServer.unavailableReason ?? "")")),
        arguments: [1.0, 8.0])
    func aHostCutOffTheNetworkGetsAnswersAndStopsWithinItsBounds(stopAfter: Double) async throws {
        let reconnectFor = 4.0
        let connectionTimeout = Double(Self.connectionTimeout)
        let handlerSeconds = 1.0
        try await NamespacedServer.with(folder: folder.path) { server in
            let ready = folder.path + "/host1.ready"
            let stop = folder.path + "/host1.stop"
            let output = folder.path + "/host1.out"
            let go = folder.path + "/host1.go"
            let host1 = try server.startProbe(
                host: 1,
                [
                    "hold", "--postgres", server.url(host: 1, schema: "bounds"), "--host", "host-1", "--component",
                    "app",
                    "--log", log, "--ready", ready, "--stop-file", stop, "--go", go, "--signals", "3", "--prefix", "b",
                    "--handler-ms", "\(Int(handlerSeconds * 1000))", "--lease", "\(Self.lease)",
                    "--reconnect-for", "\(Int(reconnectFor))", "--connection-timeout", "\(Int(connectionTimeout))",
                ], output: output)
            try await waitUntil("host 1 is ready", limit: .seconds(60)) {
                FileManager.default.fileExists(atPath: ready)
            }
            let store = try PostgresSignalStore(url: server.url(host: 0, schema: "bounds"))
            let poster = try await SignalCenter.start(
                component: "sync", store: store, options: .init(deliversAutomatically: false))
            for index in 0..<3 { try await poster.post(SignalID("b\(index)")) }
            _ = FileManager.default.createFile(atPath: go, contents: nil)
            let pid = String(host1.processIdentifier)
            try await waitUntil("host 1 starts a handler", limit: .seconds(30)) {
                HandlerLog(path: log).entries.contains { !$0.isEnd && $0.pid == pid }
            }
            try server.setHost1Link(up: false)
            try await Task.sleep(for: .seconds(stopAfter))
            _ = FileManager.default.createFile(atPath: stop, contents: nil)
            let exited = await finish(host1, within: .seconds(60))
            try server.setHost1Link(up: true)
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            #expect(exited, "host 1 ended within 60 s of being told to stop: \(text)")
            let callMax = Self.number(after: "calls max ", in: text)
            let stopped = Self.number(after: "stopped ", in: text)
            // The delivery in progress (its handler and its settling call), the lease keeper, ending the run.
            let stopBound =
                handlerSeconds + (reconnectFor + connectionTimeout) + (Double(Self.lease) / 2 + 1)
                + (min(reconnectFor, Double(Self.lease)) + connectionTimeout)
            print(
                "pg.partition_bounds: told to stop \(Int(stopAfter)) s into the cut: host 1 call max \(String(format: "%.1f", callMax ?? -1)) s (bound \(reconnectFor + connectionTimeout) s), stop \(String(format: "%.1f", stopped ?? -1)) s (bound \(stopBound) s)"
            )
            #expect(callMax != nil && callMax! <= reconnectFor + connectionTimeout + 1, "\(text)")
            #expect(stopped != nil && stopped! <= stopBound, "\(text)")
            #expect(text.contains("storeUnavailable") || text.contains("cannot reach the PostgreSQL server"), "\(text)")
            try await poster.stop()
            await store.close()
        }
    }

    /// Host 2 idle, host 1 holding `deliveries` claims with slow handlers; host 1 is cut off at its
    /// first handler for three leases (host 2 takes over and completes everything meanwhile), then
    /// reconnected and left to settle.
    private func scenario(
        localURL: String, hostURL: (Int) -> String, start: StartHost,
        cutOff: (Process) throws -> Void, reconnect: (Process) throws -> Void
    ) async throws -> Figures {
        // Host 1 delivers once everything is posted: it claims all deliveries in one batch.
        let go = folder.path + "/host1.go"
        var hosts: [(process: Process, ready: String, stop: String, output: String)] = []
        for host in [2, 1] {
            let ready = folder.path + "/host\(host).ready"
            let stop = folder.path + "/host\(host).stop"
            let output = folder.path + "/host\(host).out"
            var arguments = [
                "hold", "--postgres", hostURL(host), "--host", "host-\(host)", "--component", "app", "--log", log,
                "--ready", ready, "--stop-file", stop, "--lease", "\(Self.lease)",
                "--reconnect-for", "\(Self.reconnectFor)", "--connection-timeout", "\(Self.connectionTimeout)",
            ]
            if host == 1 {
                arguments += [
                    "--signals", "\(Self.deliveries)", "--prefix", "p", "--handler-ms", "400", "--go", go,
                ]
            }
            let process = try start(host, arguments, output)
            hosts.append((process, ready, stop, output))
            try await waitUntil("host \(host) is ready", limit: .seconds(60)) {
                FileManager.default.fileExists(atPath: ready) || !process.isRunning
            }
        }
        let (host2, host1) = (hosts[0], hosts[1])
        defer {
            for host in hosts where host.process.isRunning {
                kill(host.process.processIdentifier, SIGCONT)
                host.process.terminate()
            }
        }
        let store = try PostgresSignalStore(url: localURL)
        let poster = try await SignalCenter.start(
            component: "sync", store: store, options: .init(deliversAutomatically: false))
        for index in 0..<Self.deliveries { try await poster.post(SignalID("p\(index)")) }
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        let keys = Self.lines(host1.output).compactMap { line -> String? in
            line.hasPrefix("consumer ") ? String(line.dropFirst("consumer ".count)) + "/1" : nil
        }
        #expect(keys.count == Self.deliveries, "host 1 registered its consumers")
        let host1PID = String(host1.process.processIdentifier)
        let host2PID = String(host2.process.processIdentifier)
        try await waitUntil("host 1 starts a handler", limit: .seconds(30)) {
            HandlerLog(path: log).entries.contains { !$0.isEnd && $0.pid == host1PID }
        }
        try cutOff(host1.process)
        let cutAt = ContinuousClock.now
        try await waitUntil("host 2 completes every delivery", limit: .seconds(90)) {
            var done = 0
            for key in keys where try await !store.completions(of: DeliveryKey(key)).isEmpty { done += 1 }
            return done == keys.count
        }
        try await Task.sleep(until: cutAt + .seconds(3 * Self.lease))
        let startedBeforeTheCut = HandlerLog(path: log).entries.filter { !$0.isEnd && $0.pid == host1PID }.count
        try reconnect(host1.process)
        // Host 1 settles: its log stays unchanged for 3 s.
        var lastCount = -1
        var quietSince = ContinuousClock.now
        try await waitUntil("host 1 settles", limit: .seconds(90)) {
            let count = HandlerLog(path: log).entries.count
            if count != lastCount { (lastCount, quietSince) = (count, .now) }
            return quietSince.duration(to: .now) >= .seconds(3)
        }
        for host in hosts { _ = FileManager.default.createFile(atPath: host.stop, contents: nil) }
        for host in hosts {
            let exited = await finish(host.process, within: .seconds(60))
            #expect(exited, "\(host.output) ended within 60 s of being told to stop")
        }

        var figures = Figures()
        figures.startedByHost1BeforeTheCut = startedBeforeTheCut
        let host2Run = try String(contentsOfFile: host2.ready, encoding: .utf8)
        let host1Run = try String(contentsOfFile: host1.ready, encoding: .utf8)
        let entries = HandlerLog(path: log).entries
        for key in keys {
            let completions = try await store.completions(of: DeliveryKey(key))
            if completions.isEmpty { figures.lost += 1 }
            if completions.count > 1 { figures.completedTwice += 1 }
            if completions.contains(where: { $0.runID == host2Run }) { figures.completedByHost2 += 1 }
            if completions.contains(where: { $0.runID == host1Run }) { figures.completedByHost1 += 1 }
            // Host 1's starts of the key after host 2's handler returned for it (right before its completion).
            guard let returned = entries.firstIndex(where: { $0.isEnd && $0.key == key && $0.pid == host2PID }) else {
                continue
            }
            figures.startedAfterCompletion +=
                entries[(returned + 1)...].filter {
                    !$0.isEnd && $0.key == key && $0.pid == host1PID
                }.count
        }
        figures.host1Output = (try? String(contentsOfFile: host1.output, encoding: .utf8)) ?? ""
        figures.host1CallMax = Self.number(after: "calls max ", in: figures.host1Output) ?? -1
        try await poster.stop()
        await store.close()
        return figures
    }

    private func check(_ figures: Figures) {
        #expect(figures.lost == 0)
        #expect(figures.completedTwice == 0)
        #expect(figures.completedByHost1 + figures.completedByHost2 == Self.deliveries)
        // Host 1 completed only handlers it had started before the cut (how many depends on how fast
        // the cut lands after its first start).
        #expect(
            figures.completedByHost1 <= figures.startedByHost1BeforeTheCut,
            "host 1 completed only handlers it ran before it was cut off")
        #expect(
            figures.startedAfterCompletion == 0,
            "host 1 started handlers of deliveries that host 2 had completed")
        #expect(
            figures.host1Output.contains("was taken over by another process"),
            "host 1 reports that its run was taken over: \(figures.host1Output)")
        #expect(
            figures.host1CallMax >= 0
                && figures.host1CallMax <= Double(Self.reconnectFor + Self.connectionTimeout + 1),
            "host 1's calls end within reconnectFor + connectionTimeout: \(figures.host1Output)")
    }

    /// Waits (up to `limit`) until `condition` holds; fails naming `what` otherwise.
    private func waitUntil(
        _ what: String, limit: Duration, _ condition: () async throws -> Bool
    ) async throws {
        try await TestWait.until(what, limit: limit, every: .milliseconds(50), condition)
    }

    /// Waits for `process` to exit, at most `limit`; kills it otherwise. Whether it exited by itself.
    private func finish(_ process: Process, within limit: Duration) async -> Bool {
        let end = ContinuousClock.now + TestWait.bound(limit)
        while process.isRunning, ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(50)) }
        guard process.isRunning else { return true }
        kill(process.processIdentifier, SIGKILL)
        await Probe.finish(process)
        return false
    }

    private static func lines(_ path: String) -> [Substring] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
    }

    /// The number after `prefix` on the last line that starts with it.
    private static func number(after prefix: String, in text: String) -> Double? {
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix(prefix) }) else { return nil }
        return Double(line.dropFirst(prefix.count).prefix { !$0.isWhitespace })
    }
}
#endif
