// swift-tools-version: 6.0
//
// Scanner throughput against SwiftParser, in-process and as whole processes (`handlergen scan`
// against `swiftparser-scan`). A separate package so that swift-syntax never
// enters HandlerKit's own dependency graph. Run in this folder:
//     swift build -c release --product handlergen && swift build -c release && swift run -c release ScannerBenchmark
import PackageDescription

let package = Package(
    name: "ScannerBenchmark",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1")
    ],
    targets: [
        .executableTarget(
            name: "ScannerBenchmark",
            dependencies: [
                "HandlerScanner",
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
            ]
        ),
        // HandlerKit's scanner, which is no product of HandlerKit (only its tools use it): its sources,
        // through the symbolic link Sources/HandlerScanner, compiled as a module of this package.
        .target(name: "HandlerScanner"),
        // Parses every .swift file under its arguments with SwiftParser: the whole-process baseline.
        .executableTarget(
            name: "swiftparser-scan",
            dependencies: [
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
            ]
        ),
    ]
)
