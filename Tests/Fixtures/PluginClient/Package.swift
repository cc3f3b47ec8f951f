// swift-tools-version: 6.0
//
// A client of HandlerKit, as a user writes one: it depends on the package by path, marks functions
// with @handler in every form and lets the build plugin generate their registration. PluginEndToEndTests
// copies this folder, builds it with `swift build` and checks what `PluginClient` prints; building
// `MisuseClient` must fail with the generator's error at the private handler's line; `ImportsClient`
// must build (handlers taking Foundation types); `TopLevelClient` calls handlers from top-level code;
// building `NoPluginClient`, which uses @handler without the plugin, must fail at its @handler line. `ChatKit` is a library whose public and package
// handlers `PluginClient` creates and calls through their generated helpers.
import Foundation
import PackageDescription

/// Where HandlerKit is: the repository root (the end-to-end test replaces this with an absolute path).
let handlerKitPath = "../../.."

/// A path dependency's package identity is the last component of its path, whatever the folder is called.
let handlerKitIdentity = URL(fileURLWithPath: handlerKitPath, relativeTo: URL(fileURLWithPath: #filePath).deletingLastPathComponent())
    .standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "PluginClient",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: handlerKitPath)],
    targets: [
        .executableTarget(
            name: "PluginClient",
            dependencies: ["ClientCTypes", "ChatKit", .product(name: "HandlerKit", package: handlerKitIdentity)],
            plugins: [.plugin(name: "HandlerKitPlugin", package: handlerKitIdentity)]
        ),
        // A feature module: handlers used from another module.
        .target(
            name: "ChatKit",
            dependencies: [.product(name: "HandlerKit", package: handlerKitIdentity)],
            plugins: [.plugin(name: "HandlerKitPlugin", package: handlerKitIdentity)]
        ),
        // C structs and enums that PluginClient's handlers bind.
        .target(name: "ClientCTypes"),
        // Handlers whose parameter types come from Foundation.
        .target(
            name: "ImportsClient",
            dependencies: [.product(name: "HandlerKit", package: handlerKitIdentity)],
            plugins: [.plugin(name: "HandlerKitPlugin", package: handlerKitIdentity)]
        ),
        .target(
            name: "MisuseClient",
            dependencies: [.product(name: "HandlerKit", package: handlerKitIdentity)],
            plugins: [.plugin(name: "HandlerKitPlugin", package: handlerKitIdentity)]
        ),
        // `try await handler.call()` in top-level code.
        .executableTarget(
            name: "TopLevelClient",
            dependencies: [.product(name: "HandlerKit", package: handlerKitIdentity)],
            plugins: [.plugin(name: "HandlerKitPlugin", package: handlerKitIdentity)]
        ),
        // @handler without the build plugin: must fail at the attribute, naming the plugin.
        .target(
            name: "NoPluginClient",
            dependencies: [.product(name: "HandlerKit", package: handlerKitIdentity)]
        ),
    ]
)
