import Foundation

/// What the handlers were called with. Thread-safe.
final class Journal: @unchecked Sendable {
    static let shared = Journal()

    private let lock = NSLock()
    private var entries: [String] = []
    private var passed = 0

    func record(_ entry: String) {
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }

    /// Counts a passed check.
    func passCheck() {
        lock.lock()
        passed += 1
        lock.unlock()
    }

    /// How many checks passed.
    var passedChecks: Int {
        lock.lock()
        defer { lock.unlock() }
        return passed
    }

    /// The entries since the last call, and clears them.
    func take() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        let taken = entries
        entries = []
        return taken
    }
}

/// An error a handler throws.
struct ClientError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
