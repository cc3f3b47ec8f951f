import Foundation

/// What the handlers of the fixture's modules (ChatKit and PluginClient) were called with, for
/// PluginClient to check. Thread-safe.
public final class Journal: @unchecked Sendable {
    public static let shared = Journal()

    private let lock = NSLock()
    private var entries: [String] = []
    private var passed = 0

    public func record(_ entry: String) {
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }

    /// Counts a passed check.
    public func passCheck() {
        lock.lock()
        passed += 1
        lock.unlock()
    }

    /// How many checks passed.
    public var passedChecks: Int {
        lock.lock()
        defer { lock.unlock() }
        return passed
    }

    /// The entries since the last call, and clears them.
    public func take() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        let taken = entries
        entries = []
        return taken
    }
}
