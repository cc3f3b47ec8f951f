import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The consumer handlers of the probe's own commands (those of the TestKit's probe are its own). Each
/// writes one line when it starts and one when it returns to the log file bound to it, in the format
/// the tests' `HandlerLog` reads, so they can tell every run of a handler and whether it returned.
enum Probe {
    /// Records the delivery: `start <key> <item> <pid>`, then `end <key> <item> <pid>`. Before
    /// that, `late <key> <item> <pid>` when the store already holds a completion of the delivery (a
    /// handler started after its delivery was completed elsewhere).
    @handler
    static func record(log: String, item: Int, deliveryKey: String, signalRevision: Int) async {
        if let store = ProbeContext.store,
            let completions = try? await store.completions(of: DeliveryKey(deliveryKey)), !completions.isEmpty
        {
            ProbeLog.append(log, "late \(deliveryKey) \(item) \(getpid())")
        }
        ProbeLog.append(log, "start \(deliveryKey) \(item) \(getpid())")
        ProbeLog.append(log, "end \(deliveryKey) \(item) \(getpid())")
    }

    /// Records the delivery like `record`, `delay` milliseconds passing between its start and its end.
    @handler
    static func slowRecord(log: String, delay: Int, item: Int, deliveryKey: String) async {
        if let hold = ProbeContext.holdFile {
            while !FileManager.default.fileExists(atPath: hold) { try? await Task.sleep(for: .milliseconds(2)) }
        }
        if let store = ProbeContext.store,
            let completions = try? await store.completions(of: DeliveryKey(deliveryKey)), !completions.isEmpty
        {
            ProbeLog.append(log, "late \(deliveryKey) \(item) \(getpid())")
        }
        ProbeLog.append(log, "start \(deliveryKey) \(item) \(getpid())")
        try? await Task.sleep(for: .milliseconds(delay))
        ProbeLog.append(log, "end \(deliveryKey) \(item) \(getpid())")
    }
}

/// Appending lines to a log file that several processes share (`O_APPEND`: each line lands whole).
enum ProbeLog {
    static func append(_ path: String, _ line: String) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    static func lines(_ path: String) -> [Substring] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n")
    }
}
