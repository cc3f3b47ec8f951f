// swift-tools-version: 6.1
//
// A server target as a user writes one: it depends on HandlerKitSignalsPostgres (with the `PostgreSQL`
// trait, which brings in postgres-nio, swift-nio-ssl and its BoringSSL headers) and its handlers take
// Foundation types. PluginEndToEndTests copies this folder and builds `ServerHandlers` with
// `swift build`: the plugin must not ask libclang about `Data`, `Date`, `URL` or `UUID`, and must not
// let BoringSSL's headers, which it cannot read on their own, break the build.
import Foundation
import PackageDescription

/// Where HandlerKit is: the repository root (the end-to-end test replaces this with an absolute path).
let handlerKitPath = "../../.."

/// A path dependency's package identity is the last component of its path, whatever the folder is called.
let handlerKitIdentity = URL(fileURLWithPath: handlerKitPath, relativeTo: URL(fileURLWithPath: #filePath).deletingLastPathComponent())
    .standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "ServerClient",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: handlerKitPath, traits: ["PostgreSQL"])],
    targets: [
        .target(
            name: "ServerHandlers",
            dependencies: [
                .product(name: "HandlerKit", package: handlerKitIdentity),
                .product(name: "HandlerKitSignalsPostgres", package: handlerKitIdentity),
            ],
            plugins: [.plugin(name: "HandlerKitPlugin", package: handlerKitIdentity)]
        )
    ]
)
