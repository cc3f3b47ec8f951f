#if os(macOS) || os(Linux)
import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

/// `check`: verifies a store after a run of killed processes and prints the counts.
///
/// Expected deliveries: for each consumer line (`consumer <id> <signal> <mode>` from `register`) and
/// each post line (`posted <signal> <revision> <deliveries>`), a once consumer expects revision 1 of
/// its signal if it was posted, an every-revision consumer every revision posted.
enum ProbeVerification {
    struct Counts {
        var expected = 0
        var completedOnce = 0
        var completedTwice = 0
        var lost = 0
        var unexpectedReturns = 0
        var handlerReturns = 0
        var interruptedHandlers = 0
        var interruptedRerun = 0
        var startedAfterCompletion = 0
    }

    static func run(
        store: any SignalStore, log: String, consumerLines: [Substring], postLines: [Substring]
    ) async throws -> Bool {
        var revisions: [String: Int] = [:]
        for line in postLines {
            let fields = line.split(separator: " ")
            guard fields.count == 4, fields[0] == "posted", let revision = Int(fields[2]) else { continue }
            revisions[String(fields[1]), default: 0] = max(revisions[String(fields[1]), default: 0], revision)
        }
        var expected: Set<String> = []
        for line in consumerLines {
            let fields = line.split(separator: " ")
            guard fields.count == 4, fields[0] == "consumer" else { continue }
            let posted = revisions[String(fields[2]), default: 0]
            let last = fields[3] == "every" ? posted : min(posted, 1)
            if last > 0 { for revision in 1...last { expected.insert("\(fields[1])/\(revision)") } }
        }

        var counts = Counts(expected: expected.count)
        for key in expected.sorted() {
            switch try await store.completions(of: DeliveryKey(key)).count {
            case 0: counts.lost += 1
            case 1: counts.completedOnce += 1
            default: counts.completedTwice += 1
            }
        }
        // The handler log: `start <key> <item> <pid>` / `end <key> <item> <pid>`, and `late <key> <item> <pid>`
        // before the start of a handler whose delivery was already completed.
        let lines = ProbeLog.lines(log).map { $0.split(separator: " ") }.filter { $0.count == 4 }
        counts.startedAfterCompletion = lines.count { $0[0] == "late" }
        let entries = lines.filter { $0[0] == "start" || $0[0] == "end" }
        var returned: Set<String> = []
        for (index, entry) in entries.enumerated() {
            let key = String(entry[1])
            if entry[0] == "end" {
                counts.handlerReturns += 1
                returned.insert(key)
                continue
            }
            let later = entries[(index + 1)...]
            if !later.contains(where: { $0[0] == "end" && $0[1] == entry[1] && $0[3] == entry[3] }) {
                counts.interruptedHandlers += 1
                if later.contains(where: { $0[0] == "end" && $0[1] == entry[1] }) { counts.interruptedRerun += 1 }
            }
        }
        counts.unexpectedReturns = returned.subtracting(expected).count
        let statistics = try await store.statistics()
        say(
            """
            deliveries expected: \(counts.expected)
            completed exactly once: \(counts.completedOnce)
            completed more than once: \(counts.completedTwice)
            lost (never completed): \(counts.lost)
            handler returns: \(counts.handlerReturns) (for \(returned.count) deliveries)
            handlers interrupted by a kill: \(counts.interruptedHandlers), run again: \(counts.interruptedRerun)
            handlers started after their delivery was completed: \(counts.startedAfterCompletion)
            left in the store: pending \(statistics.pendingDeliveries), claimed \(statistics.claimedDeliveries), dead \(statistics.deadDeliveries)
            """)
        return counts.completedOnce == counts.expected && counts.completedTwice == 0 && counts.lost == 0
            && counts.unexpectedReturns == 0 && returned == expected
            && counts.interruptedRerun == counts.interruptedHandlers && counts.startedAfterCompletion == 0
            && statistics.pendingDeliveries == 0 && statistics.claimedDeliveries == 0 && statistics.deadDeliveries == 0
    }
}
#endif
