import Foundation

/// What ChatKit's handlers were called with, for PluginClient to check. Thread-safe.
public final class ChatKitJournal: @unchecked Sendable {
    public static let shared = ChatKitJournal()

    private let lock = NSLock()
    private var entries: [String] = []

    func record(_ entry: String) {
        lock.lock()
        entries.append(entry)
        lock.unlock()
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
