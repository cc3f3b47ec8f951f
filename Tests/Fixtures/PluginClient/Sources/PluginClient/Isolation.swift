import ChatKit
import HandlerKit

// In a client module: handlers on the main actor (through the type, and through the
// function), and a default value that names a private constant.

/// Main-actor state the handlers use synchronously: the generated shims call them on the main actor.
@MainActor
enum Banner {
    static var shown: [String] = []

    @handler
    static func show(text: String) {
        shown.append(text)
        Journal.shared.record("Banner.show text=\(text) shown=\(shown.count)")
    }
}

enum Toast {
    @MainActor @handler
    static func pop(message: String) async {
        Banner.shown.append(message)
        Journal.shared.record("Toast.pop message=\(message)")
    }
}

/// The default names a private constant: the shims leave the argument out when it has no value.
enum Paging {
    @handler
    static func fetch(page: Int, size: Int = defaultSize) {
        Journal.shared.record("Paging.fetch page=\(page) size=\(size)")
    }
}

private let defaultSize = 30
