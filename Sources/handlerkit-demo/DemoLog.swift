import Foundation

/// What the demo's handlers did, printed as it happens and kept so a step can check that the
/// handler it expected really ran. Thread-safe.
final class DemoLog: @unchecked Sendable {
    static let shared = DemoLog()

    private let lock = NSLock()
    private var ranIDs: [String] = []

    /// Prints what handler `id` did and records that it ran.
    func ran(_ id: String, _ what: String) {
        lock.lock()
        ranIDs.append(id)
        lock.unlock()
        Say.line("  -> handler \(id) ran: \(what)")
    }

    /// The ids of the handlers that ran since the last call, and forgets them.
    func takeRanIDs() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        let taken = ranIDs
        ranIDs = []
        return taken
    }
}
