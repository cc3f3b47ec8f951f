// `handlerkit-bench rescue.` (SQLite) and `rescue_pg.` (PostgreSQL, with the package trait): how long
// deliveries wait after the process running them dies (SIGKILL) or, on PostgreSQL, is cut off the
// network, until another running process of the component starts them again.
//
// Every round: a survivor process of the component `rescue` runs; a victim process of the same
// component registers a durable consumer of the round's signal; this process posts it; the victim's
// handler starts (and would hold the delivery for minutes); the victim is killed (or its network link
// taken down); the figure is the time from the kill (or the cut) to the start of the same delivery's
// handler in the survivor. Both children are this executable again (`--rescue-child …`) and report
// `start ROUND NANOSECONDS` lines (CLOCK_MONOTONIC, one clock for every process of the machine).
import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite

#if PostgreSQL
import HandlerKitSignalsPostgres
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum RescueBenchmark {
    static let childFlag = "--rescue-child"
    static let component = "rescue"
    /// Kills per store: enough for a 99th percentile that is not just the maximum of a handful.
    static let kills = 24
    /// How often the SQLite survivor calls `takeOverDeadRuns()`: the SQLite store has no running
    /// process take over dead runs by itself, so the survivor asks.
    static let sqlitePollInterval = Duration.milliseconds(250)
    /// The range of the random pause before each kill, in milliseconds: longer than the PostgreSQL
    /// store's liveness check interval (2 s), so that kills land anywhere between two checks.
    static let killSpread = 2_500

    /// What the handler does in this process.
    struct Behavior: Sendable {
        /// How long the handler holds its delivery after reporting its start (0: returns at once).
        var hold: Duration = .zero
    }

    static let behavior = Locked(Behavior())

    enum Probe {
        /// Reports `start ROUND NS` on standard output, holds the delivery as this process is told,
        /// then reports `end ROUND NS`.
        @handler
        static func rescued(round: Int) async {
            FileHandle.standardOutput.write(Data("start \(round) \(SignalsBenchmark.monotonicNanoseconds())\n".utf8))
            let hold = behavior.withLock { $0.hold }
            guard hold > .zero else { return }
            try? await Task.sleep(for: hold)
            FileHandle.standardOutput.write(Data("end \(round) \(SignalsBenchmark.monotonicNanoseconds())\n".utf8))
        }
    }

    // MARK: Children

    /// The child's arguments: `--rescue-child ROLE STORE LOCATION [SIGNAL] [--hold S] [--lease S]`,
    /// ROLE `survivor` or `victim`, STORE `sqlite` (LOCATION a file) or `postgres` (LOCATION a URL).
    struct ChildArguments {
        var role: String
        var store: String
        var location: String
        var signal: String?
        var hold = 600.0
        var lease: Int?

        init(_ arguments: [String]) throws {
            guard arguments.count >= 3 else {
                throw BenchmarkFailure("\(RescueBenchmark.childFlag) needs ROLE STORE LOCATION")
            }
            (role, store, location) = (arguments[0], arguments[1], arguments[2])
            var rest = arguments.dropFirst(3)
            while let word = rest.popFirst() {
                switch word {
                case "--hold": hold = rest.popFirst().flatMap(Double.init) ?? hold
                case "--lease": lease = rest.popFirst().flatMap(Int.init)
                default: signal = word
                }
            }
        }
    }

    /// Runs the child's part and returns `true` when this process was started as a child.
    static func runChildIfAsked() async throws -> Bool {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: childFlag) else { return false }
        try await runChild(ChildArguments(Array(arguments[(index + 1)...])))
        return true
    }

    static func runChild(_ arguments: ChildArguments) async throws {
        let registry = HandlerRegistry()
        try registry.register(.handlerkit_bench)
        let store = try makeStore(arguments)
        let center = try await SignalCenter.start(component: component, store: store, registry: registry)
        let poller: Task<Void, Never>?
        if arguments.role == "victim", let signal = arguments.signal {
            behavior.withLock { $0.hold = .milliseconds(Int(arguments.hold * 1000)) }
            let consumer = try await center.register(
                try Probe.rescuedHandler(registry: registry), for: SignalID(signal), delivery: .everyRevision)
            FileHandle.standardOutput.write(Data("consumer \(consumer.rawValue)\n".utf8))
            poller = nil
        } else if arguments.store == "sqlite" {
            poller = Task {
                while !Task.isCancelled {
                    _ = try? await center.takeOverDeadRuns()
                    try? await Task.sleep(for: sqlitePollInterval)
                }
            }
        } else {
            poller = nil
        }
        FileHandle.standardOutput.write(Data("ready \(center.runID)\n".utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
        poller?.cancel()
        try? await center.stop()
        #if PostgreSQL
        if let store = store as? PostgresSignalStore { await store.close() }
        #endif
    }

    static func makeStore(_ arguments: ChildArguments) throws -> any SignalStore {
        if arguments.store == "sqlite" { return try SQLiteSignalStore(path: arguments.location) }
        #if PostgreSQL
        var options = PostgresSignalStore.Options(hostID: "rescue-\(arguments.role)")
        if let lease = arguments.lease {
            options.lease = .seconds(lease)
            options.connectionTimeout = .seconds(2)
            options.reconnectFor = .seconds(60)
        }
        return try PostgresSignalStore(url: arguments.location, options: options)
        #else
        throw BenchmarkFailure("built without the package trait PostgreSQL")
        #endif
    }

    /// A child process, reporting lines on a pipe; it ends when its standard input closes.
    final class ChildProcess: Sendable {
        let process: Process
        private let input: Pipe
        private let reader: LineReader
        /// The child's run id (from its `ready` line).
        let runID: String
        /// The key of the victim's delivery of revision 1 (from its `consumer` line).
        let deliveryKey: String?

        /// Starts `--rescue-child ARGUMENTS`, in the network namespace `namespace` when given.
        init(_ arguments: [String], namespace: String? = nil) throws {
            let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
            process = Process()
            if let namespace, let ip = NetworkNamespaces.ip {
                process.executableURL = URL(fileURLWithPath: ip)
                process.arguments = ["netns", "exec", namespace, executable.path] + [childFlag] + arguments
            } else {
                process.executableURL = executable
                process.arguments = [childFlag] + arguments
            }
            input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            reader = LineReader(output.fileHandleForReading)
            var key: String?
            while true {
                guard let line = reader.next() else {
                    throw BenchmarkFailure("a rescue child ended before it was ready")
                }
                if line.hasPrefix("consumer ") { key = line.dropFirst("consumer ".count) + "/1" }
                if line.hasPrefix("ready ") {
                    runID = String(line.dropFirst("ready ".count))
                    break
                }
            }
            deliveryKey = key
        }

        /// The monotonic time of the next `WORD ROUND …` line; the child is killed (and this throws)
        /// when none comes within `limit` seconds.
        func next(_ word: String, round: Int, limit: Double = 120) throws -> UInt64 {
            let answered = Locked(false)
            let pid = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
                if !answered.withLock({ $0 }) { kill(pid, SIGKILL) }
            }
            defer { answered.withLock { $0 = true } }
            while let line = reader.next() {
                let fields = line.split(separator: " ")
                if fields.count == 3, fields[0] == word, Int(fields[1]) == round, let time = UInt64(fields[2]) {
                    return time
                }
            }
            throw BenchmarkFailure(
                "a rescue child ended (or was silent for \(Int(limit)) s) before it reported '\(word) \(round)'")
        }

        /// SIGKILL, and waits for the process to be gone.
        func killAbruptly() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        func finish() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    // MARK: Kills

    /// `kills` rounds against `store`: milliseconds from each SIGKILL to the survivor's start.
    static func killRounds(
        store: any SignalStore, childStore: String, location: String, survivorExtra: [String] = []
    ) async throws -> [Double] {
        let survivor = try ChildProcess(["survivor", childStore, location] + survivorExtra)
        defer { survivor.finish() }
        let poster = try await SignalCenter.start(
            component: "rescue-poster", store: store, options: .init(deliversAutomatically: false))
        var rescues: [Double] = []
        for round in 0..<kills {
            let signal = "rescue.kill\(round)"
            let victim = try ChildProcess(["victim", childStore, location, signal])
            // A random pause, so that kills do not fall in step with the survivor's periodic checks.
            try await Task.sleep(for: .milliseconds(Int.random(in: 0..<killSpread)))
            try await poster.post(SignalID(signal), payload: ["round": round])
            _ = try victim.next("start", round: round)
            let killedAt = SignalsBenchmark.monotonicNanoseconds()
            victim.killAbruptly()
            let restarted = try survivor.next("start", round: round)
            rescues.append(Double(restarted &- killedAt) / 1e6)
        }
        try await poster.stop()
        return rescues.sorted()
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    /// The `rescue.` figures: SQLite.
    static func run(filter: String?) async throws {
        guard filter.map({ "rescue.".hasPrefix($0) || $0.hasPrefix("rescue.") }) ?? true else { return }
        let folder = FileManager.default.temporaryDirectory.appending(
            path: "handlerkit-bench-rescue-\(UUID().uuidString)"
        )
        .path(percentEncoded: false)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/signals.sqlite"
        let rescues = try await killRounds(
            store: try SQLiteSignalStore(path: database), childStore: "sqlite", location: database)
        SignalsBenchmark.report("rescue.kill_p50_ms", percentile(rescues, 0.5), "ms")
        SignalsBenchmark.report("rescue.kill_p99_ms", percentile(rescues, 0.99), "ms")
        SignalsBenchmark.report("rescue.kill_max_ms", rescues.last ?? 0, "ms")
    }
}

/// `ip`, for the partition rounds' network namespaces.
enum NetworkNamespaces {
    static let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
}

#if PostgreSQL
extension RescueBenchmark {
    /// The lease of the partition rounds (the default is 30 s; a shorter one keeps the rounds short).
    static let partitionLease = 10
    static let partitions = 3

    /// The `rescue_pg.` figures: kills on the server of HANDLERKIT_POSTGRES_URL, partitions on a server
    /// of its own in network namespaces (Scripts/netns-postgres.sh).
    static func runPostgres(url: String) async throws {
        let schema = "rescue_\(UInt32.random(in: 0...UInt32.max))"
        let location = SignalsBenchmark.postgresURL(url, schema: schema)
        let store = try PostgresSignalStore(url: location)
        let rescues = try await killRounds(store: store, childStore: "postgres", location: location)
        await store.close()
        SignalsBenchmark.report("rescue_pg.kill_p50_ms", percentile(rescues, 0.5), "ms")
        SignalsBenchmark.report("rescue_pg.kill_p99_ms", percentile(rescues, 0.99), "ms")
        SignalsBenchmark.report("rescue_pg.kill_max_ms", rescues.last ?? 0, "ms")
        try await partitionRounds()
    }

    /// Rounds with the victim on host 1 and the survivor on host 2 of a namespaced server: host 1's
    /// link is cut while its handler holds the delivery (for longer than the lease), and restored after
    /// the survivor has completed it; the victim's handler then returns and its completion must be refused.
    static func partitionRounds() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(
            path: "handlerkit-bench-rescue-\(UUID().uuidString)"
        )
        .path(percentEncoded: false)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server: NamespacedPostgres
        do {
            server = try await NamespacedPostgres.start(folder: folder)
        } catch {
            print("rescue_pg.partition_s: skipped: \(error)")
            return
        }
        defer { server.stop() }
        let schema = "rescue_partition"
        let lease = ["--lease", "\(partitionLease)"]
        let hold = Double(partitionLease) + 10
        let survivor = try ChildProcess(
            ["survivor", "postgres", server.url("url_host2", schema)] + lease, namespace: server.info["host2_namespace"]
        )
        defer { survivor.finish() }
        let store = try PostgresSignalStore(url: server.url("url_local", schema))
        let poster = try await SignalCenter.start(
            component: "rescue-poster", store: store, options: .init(deliversAutomatically: false))
        var seconds: [Double] = []
        var completedByCutOffHost = 0
        for round in 0..<partitions {
            let signal = "rescue.cut\(round)"
            let victim = try ChildProcess(
                ["victim", "postgres", server.url("url_host1", schema), signal, "--hold", "\(hold)"] + lease,
                namespace: server.info["host1_namespace"])
            try await poster.post(SignalID(signal), payload: ["round": round])
            _ = try victim.next("start", round: round)
            try server.setHost1Link(up: false)
            let cutAt = SignalsBenchmark.monotonicNanoseconds()
            let restarted = try survivor.next("start", round: round)
            seconds.append(Double(restarted &- cutAt) / 1e9)
            // The survivor completes it; then host 1 comes back, its handler returns and it tries to complete.
            let key = DeliveryKey(victim.deliveryKey ?? "")
            while try await store.completions(of: key).isEmpty { try await Task.sleep(for: .milliseconds(50)) }
            try server.setHost1Link(up: true)
            _ = try victim.next("end", round: round)
            try await Task.sleep(for: .seconds(3))
            completedByCutOffHost += try await store.completions(of: key).filter { $0.runID == victim.runID }.count
            victim.finish()
        }
        try await poster.stop()
        await store.close()
        seconds.sort()
        SignalsBenchmark.report("rescue_pg.partition_s", seconds.last ?? 0, "s")
        SignalsBenchmark.report("rescue_pg.partition_min_s", seconds.first ?? 0, "s")
        print("rescue_pg.partition_lease_s: \(partitionLease) s")
        print("rescue_pg.partition_completed_by_cut_off_host: \(completedByCutOffHost) of \(partitions) deliveries")
    }

    /// A PostgreSQL server in a network namespace, with two host namespaces (Scripts/netns-postgres.sh).
    struct NamespacedPostgres {
        let info: [String: String]
        let stopFile: String
        let script: Process

        struct Unavailable: Error, CustomStringConvertible {
            var description: String
        }

        static func start(folder: String) async throws -> NamespacedPostgres {
            guard getuid() == 0 else { throw Unavailable(description: "network namespaces need root") }
            guard NetworkNamespaces.ip != nil else { throw Unavailable(description: "the ip command is missing") }
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            let infoFile = folder + "/netns.info"
            let stopFile = folder + "/netns.stop"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [root.appending(path: "Scripts/netns-postgres.sh").path, infoFile, stopFile]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let end = ContinuousClock.now + .seconds(120)
            while !FileManager.default.fileExists(atPath: infoFile), process.isRunning, ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(20))
            }
            var info: [String: String] = [:]
            for line in ((try? String(contentsOfFile: infoFile, encoding: .utf8)) ?? "").split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { info[String(parts[0])] = String(parts[1]) }
            }
            let server = NamespacedPostgres(info: info, stopFile: stopFile, script: process)
            guard info["unavailable"] == nil, info["url_local"] != nil else {
                server.stop()
                throw Unavailable(
                    description: info["unavailable"] ?? "Scripts/netns-postgres.sh gave no answer in 120 s")
            }
            return server
        }

        func url(_ name: String, _ schema: String) -> String { (info[name] ?? "") + "?schema=" + schema }

        func setHost1Link(up: Bool) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: NetworkNamespaces.ip ?? "/sbin/ip")
            process.arguments = [
                "-n", info["host1_namespace"] ?? "", "link", "set", info["host1_link"] ?? "", up ? "up" : "down",
            ]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw BenchmarkFailure("ip link set failed for host 1") }
        }

        func stop() {
            _ = FileManager.default.createFile(atPath: stopFile, contents: nil)
            script.waitUntilExit()
        }
    }
}
#endif
