// swift-tools-version: 6.0
//
// Scanner throughput against SwiftParser (issue 3 item 6). A separate package so that swift-syntax never
// enters HandlerKit's own dependency graph. Run: `swift run -c release` in this folder.
import PackageDescription

let package = Package(
    name: "ScannerBenchmark",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "HandlerKit", path: "../.."),
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
    ],
    targets: [
        .executableTarget(
            name: "ScannerBenchmark",
            dependencies: [
                .product(name: "HandlerScanner", package: "HandlerKit"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
            ]
        )
    ]
)
