import Foundation

/// What the fixture handlers were called with, for the tests to check. Thread-safe.
final class Recorder: @unchecked Sendable {
    static let shared = Recorder()

    private let lock = NSLock()
    private var entries: [String] = []

    func record(_ entry: String) {
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }

    /// The entries recorded since the last call, and clears them.
    func take() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        let taken = entries
        entries = []
        return taken
    }
}

/// An error a fixture handler throws.
struct FixtureError: Error, Equatable {
    let reason: String
}
