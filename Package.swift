// swift-tools-version: 6.0
//
// HandlerKit: serializable handlers for Swift. See README.md.
//
// One module per responsibility:
//   HandlerKit         the runtime apps import (handlers, JSON, registry) and the `@handler` macro declaration
//   HandlerScanner     the dependency-free lexical scanner that finds `@handler` functions
//   HandlerGenerator   renders scanned handlers into Swift through the templates in Templates/
//   handlergen         the generator as a command-line tool (what the build plugin runs)
//   HandlerKitMacros   the `@handler` compiler plugin; speaks the plugin protocol itself, no swift-syntax
//   HandlerKitSignals  durable cross-process signals (persisted handlers, delivered exactly once) on SQLite
//   HandlerKitSignalsPostgres  the same signal center with its store on PostgreSQL, for several hosts
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "HandlerKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "HandlerKit", targets: ["HandlerKit"]),
        .library(name: "HandlerScanner", targets: ["HandlerScanner"]),
        .executable(name: "handlergen", targets: ["handlergen"]),
        .plugin(name: "HandlerKitPlugin", targets: ["HandlerKitPlugin"]),
        .plugin(name: "GenerateHandlers", targets: ["GenerateHandlers"]),
        .executable(name: "handlerkit-demo", targets: ["handlerkit-demo"]),
        .library(name: "HandlerKitSignals", targets: ["HandlerKitSignals"]),
        .library(name: "HandlerKitSignalsPostgres", targets: ["HandlerKitSignalsPostgres"]),
    ],
    // Kept to one: every client of the build plugin compiles `handlergen` and what it depends on in its
    // clean build, so its command line is parsed by hand (Sources/handlergen/CommandLineArguments.swift)
    // rather than with swift-argument-parser, which cost most of a small client's clean build.
    dependencies: [
        // Renders the generator's logic-free templates (Templates/*.mustache).
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // SQLite for HandlerKitSignals' store; only clients of that product build it.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // PostgreSQL for HandlerKitSignalsPostgres' store; only clients of that product build it.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .target(name: "HandlerKit", dependencies: ["HandlerKitMacros"]),
        .target(name: "HandlerScanner"),
        // The `@handler` compiler plugin: speaks the compiler's plugin message protocol itself (no
        // swift-syntax, so clients build fast) and validates declarations with HandlerScanner.
        .target(name: "PluginProtocol", dependencies: ["HandlerScanner"]),
        .macro(name: "HandlerKitMacros", dependencies: ["PluginProtocol"]),
        .target(
            name: "HandlerGenerator",
            dependencies: ["HandlerScanner", "CHeaderReader", .product(name: "Mustache", package: "swift-mustache")]
        ),
        .executableTarget(
            name: "handlergen",
            dependencies: ["HandlerGenerator", "HandlerScanner", "CHeaderReader"]
        ),
        // Runs `handlergen generate` on a target's Swift sources and compiles the generated file with it.
        .plugin(name: "HandlerKitPlugin", capability: .buildTool(), dependencies: ["handlergen"]),
        // `swift package generate-handlers`: writes the generated file next to the sources for review.
        .plugin(
            name: "GenerateHandlers",
            capability: .command(
                intent: .custom(verb: "generate-handlers", description: "Write the generated handler file of each @handler target for review"),
                permissions: [.writeToPackageDirectory(reason: "Writes <Module>.handlers.swift.txt next to the target's sources (or to --output)")]
            ),
            dependencies: ["handlergen"]
        ),
        // `swift run handlerkit-demo`: handlers made in one process, stored as JSON, called in a second.
        .executableTarget(name: "handlerkit-demo", dependencies: ["HandlerKit", "HandlerKitSignals"], plugins: ["HandlerKitPlugin"]),
        // `swift run -c release handlerkit-bench`: issue 2's figures, measured on plugin-generated code.
        .executableTarget(
            name: "handlerkit-bench",
            dependencies: ["HandlerKit", "HandlerKitSignals", .product(name: "GRDB", package: "GRDB.swift"),
                           "HandlerKitSignalsPostgres", .product(name: "PostgresNIO", package: "postgres-nio"),
                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            path: "Benchmarks/handlerkit-bench",
            plugins: ["HandlerKitPlugin"]
        ),
        // libclang's C API as far as CHeaderReader uses it, loaded at run time with dlopen (never linked).
        .target(
            name: "CLibClang",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        // Reads C structs and enums from headers with libclang, for bindable C types (issue 5).
        .target(name: "CHeaderReader", dependencies: ["CLibClang"]),
        // Signals (issue 11): durable cross-process delivery of persisted handlers, on SQLite through GRDB.
        .target(name: "HandlerKitSignals", dependencies: ["HandlerKit", .product(name: "GRDB", package: "GRDB.swift")]),
        // A test program that registers, posts and consumes signals; the tests kill it at chosen points.
        .executableTarget(
            name: "handlerkit-signals-probe",
            dependencies: ["HandlerKitSignals", "HandlerKitSignalsPostgres"],
            path: "Tests/SignalsProbe",
            plugins: ["HandlerKitPlugin"]
        ),
        .testTarget(
            name: "HandlerKitSignalsTests",
            dependencies: ["HandlerKitSignals", "HandlerKitSignalsPostgres", "handlerkit-signals-probe", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // Signals across hosts (issue 12): the signal store on PostgreSQL through postgres-nio.
        .target(
            name: "HandlerKitSignalsPostgres",
            dependencies: ["HandlerKitSignals", .product(name: "PostgresNIO", package: "postgres-nio"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]
        ),
        .testTarget(name: "HandlerKitTests", dependencies: ["HandlerKit"]),
        .testTarget(name: "HandlerScannerTests", dependencies: ["HandlerScanner"]),
        .testTarget(
            name: "CHeaderReaderTests",
            dependencies: ["CHeaderReader"],
            resources: [.copy("Fixtures")]
        ),
        // Depends on the macro so the plugin executable is built for its process and compiler tests.
        .testTarget(name: "PluginProtocolTests", dependencies: ["PluginProtocol", "HandlerKitMacros"]),
        .testTarget(name: "HandlerGeneratorTests", dependencies: ["HandlerGenerator", "handlergen"], exclude: ["References"]),
        // Compiles the generated file of a fixture module covering every handler form and calls each
        // handler through the runtime (the file is regenerated and compared by HandlerGeneratorTests).
        .testTarget(name: "GeneratedCodeTests", dependencies: ["HandlerKit"]),
        // A C target whose structs and enums handlers bind (issue 5); its header is read with libclang.
        .target(name: "CFixtureTypes", path: "Tests/Fixtures/CFixtureTypes"),
        // Compiles the generated file (C type conversions included) of a fixture module binding the C
        // types of CFixtureTypes and round-trips edge values through the runtime's JSON (regenerated and
        // compared by HandlerGeneratorTests).
        .testTarget(name: "CTypeCodingTests", dependencies: ["HandlerKit", "CFixtureTypes"]),
        // Builds Tests/Fixtures/PluginClient with `swift build` (plugin + attribute on every form, and a
        // misuse) and runs the demo; depends on the demo so it is built first.
        .testTarget(name: "PluginEndToEndTests", dependencies: ["handlerkit-demo"]),
    ]
)
