// swift-tools-version: 6.0
//
// A client of HandlerKit in two versions: PluginEndToEndTests copies this folder,
// puts v1/*.swift in Sources/Mailer, writes the handler baseline with `swift package
// update-handler-baseline`, builds and runs v1 (it stores handler documents), then puts v2/*.swift there
// (a renamed function, type and parameter with former names, an added optional parameter) and checks
// that every v1 document rebuilds and runs; edits of v2 that break stored handlers must fail the build
// at the handler's line.
import Foundation
import PackageDescription

/// Where HandlerKit is: the repository root (the end-to-end test replaces this with an absolute path).
let handlerKitPath = "../../.."

/// A path dependency's package identity is the last component of its path, whatever the folder is called.
let handlerKitIdentity = URL(fileURLWithPath: handlerKitPath, relativeTo: URL(fileURLWithPath: #filePath).deletingLastPathComponent())
    .standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "Evolution",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: handlerKitPath)],
    targets: [
        .executableTarget(
            name: "Mailer",
            dependencies: [.product(name: "HandlerKit", package: handlerKitIdentity)],
            plugins: [.plugin(name: "HandlerKitPlugin", package: handlerKitIdentity)]
        ),
    ]
)
