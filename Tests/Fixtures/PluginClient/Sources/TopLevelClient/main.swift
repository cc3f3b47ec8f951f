// Top-level code, as in a small tool's main.swift: `try await handler.call()` runs an `async` and a
// main-actor handler here too.
import HandlerKit

enum Jobs {
    @handler
    static func run(name: String) async throws {
        await Task.yield()
        print("ok: top-level call of an async handler: Jobs.run name=\(name)")
    }
}

@MainActor
enum Screen {
    @handler
    static func show(title: String) {
        MainActor.assertIsolated()
        print("ok: top-level call of a main-actor handler: Screen.show title=\(title)")
    }
}

try HandlerRegistry.shared.register(.topLevelClient)
try await Jobs.runHandler(name: "sync").call()
try await Screen.showHandler(title: "inbox").call()
let stored = try Handler(json: try Screen.showHandler(title: "stored").jsonData())
try await stored.call()
print("TopLevelClient: done")
