import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsTestKit

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
