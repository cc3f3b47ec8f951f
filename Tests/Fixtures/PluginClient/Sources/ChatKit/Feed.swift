import HandlerKit

// Handlers of a library module, created and called from the PluginClient executable: their
// generated helpers take the handlers' access levels.

/// A value bound across modules.
public struct FeedItem: Codable, Sendable, Equatable {
    public var id: String

    public init(id: String) {
        self.id = id
    }
}

/// A public handler in a public type.
public enum Feed {
    @handler
    public static func itemsFetched(items: [FeedItem], page: Int = 1) {
        Journal.shared.record("Feed.itemsFetched items=\(items.map(\.id)) page=\(page)")
    }

    /// Internal: its helpers stay internal to ChatKit.
    @handler
    static func audited(entry: String) {
        Journal.shared.record("Feed.audited entry=\(entry)")
    }
}

/// Members of a public extension are public without a modifier.
public extension Feed {
    @handler
    static func cleared(items: [FeedItem]) {
        Journal.shared.record("Feed.cleared count=\(items.count)")
    }
}

/// A package handler: its helpers are visible to the package's other modules.
package enum Moderation {
    @handler
    package static func muted(user: String, minutes: Int) {
        Journal.shared.record("Moderation.muted user=\(user) minutes=\(minutes)")
    }
}

/// A public handler isolated to the main actor through its type.
@MainActor
public enum Badge {
    /// Main-actor state: the handler uses it synchronously.
    public static var count = 0

    @handler
    public static func bumped(by amount: Int) {
        count += amount
        Journal.shared.record("Badge.bumped count=\(count)")
    }
}
