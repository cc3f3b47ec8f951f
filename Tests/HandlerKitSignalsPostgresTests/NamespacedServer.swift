// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL && canImport(Glibc)
import Foundation
import Glibc
import SignalsTestSupport
import TestWaiting

/// A PostgreSQL server in a network namespace of its own with two "host" namespaces linked to it
/// (Scripts/netns-postgres.sh, run for the test and stopped however it ends): probes run in a host's
/// namespace with `ip netns exec`, and host 1's link can be cut and restored.
struct NamespacedServer {
    let info: [String: String]
    let stopFile: String
    let script: Process

    /// Where `ip` is.
    static let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Why namespaced servers cannot be made here, or `nil` when they can (root, `ip`, and
    /// `ip netns add` permitted).
    static let unavailableReason: String? = {
        guard getuid() == 0 else { return "network namespaces need root (ip netns add); run the tests as root" }
        guard let ip else { return "the ip command (iproute2) is missing" }
        let name = "hkcheck\(getpid())"
        guard PrivateServer.spawnAndWait([ip, "netns", "add", name]) == 0 else {
            return "ip netns add is not permitted here"
        }
        _ = PrivateServer.spawnAndWait([ip, "netns", "delete", name])
        return nil
    }()

    /// Runs `body` beside a namespaced server, which is stopped and removed afterwards.
    static func with<T>(folder: String, _ body: (NamespacedServer) async throws -> T) async throws -> T {
        let server = try await start(folder: folder)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    private static func start(folder: String) async throws -> NamespacedServer {
        let infoFile = folder + "/netns.info"
        let stopFile = folder + "/netns.stop"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [PrivateServer.packageRoot + "/Scripts/netns-postgres.sh", infoFile, stopFile]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let end = ContinuousClock.now + TestWait.bound(.seconds(120))
        while !FileManager.default.fileExists(atPath: infoFile), process.isRunning, ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(20))
        }
        var info: [String: String] = [:]
        for line in ((try? String(contentsOfFile: infoFile, encoding: .utf8)) ?? "").split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { info[String(parts[0])] = String(parts[1]) }
        }
        let server = NamespacedServer(info: info, stopFile: stopFile, script: process)
        guard info["unavailable"] == nil, info["url_local"] != nil else {
            await server.stop()
            throw PostgresTestServer.Unavailable(
                description:
                    "the namespaced PostgreSQL server (Scripts/netns-postgres.sh) did not start: \(info["unavailable"] ?? "no answer within 120 s")"
            )
        }
        return server
    }

    /// The server's URL from this process's namespace, or from host 1 or 2.
    func url(host: Int, schema: String) -> String {
        (info[host == 0 ? "url_local" : "url_host\(host)"] ?? "") + "?schema=" + schema
    }

    /// Starts the probe in host `host`'s namespace (1 or 2), its output to `output`.
    func startProbe(host: Int, _ arguments: [String], output: String) throws -> Process {
        guard let probe = Probe.executable, let ip = Self.ip else {
            throw Probe.Failure(description: "handlerkit-signals-probe or ip not found")
        }
        guard FileManager.default.createFile(atPath: output, contents: nil) else {
            throw Probe.Failure(description: "cannot create \(output)")
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ip)
        // `ip netns exec` runs the probe in the namespace as the same process (it execs it).
        process.arguments = ["netns", "exec", info["host\(host)_namespace"] ?? "", probe.path] + arguments
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try log.close()
        return process
    }

    /// Takes host 1's link down (packets to and from it are dropped; no connection is closed) or up.
    func setHost1Link(up: Bool) throws {
        guard let ip = Self.ip,
            PrivateServer.spawnAndWait([
                ip, "-n", info["host1_namespace"] ?? "", "link", "set", info["host1_link"] ?? "", up ? "up" : "down",
            ]) == 0
        else { throw Probe.Failure(description: "ip link set \(up ? "up" : "down") failed for host 1's link") }
    }

    /// Makes the script stop the server and remove the namespaces, and waits for it (at most 60 s).
    func stop() async {
        _ = FileManager.default.createFile(atPath: stopFile, contents: nil)
        let end = ContinuousClock.now + TestWait.bound(.seconds(60))
        while script.isRunning, ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(50)) }
    }
}
#endif
