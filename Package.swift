// swift-tools-version: 6.1
//
// HandlerKit: serializable handlers for Swift. See README.md.
//
// One module per responsibility:
//   HandlerKit         the runtime apps import (handlers, JSON, registry) and the `@handler` macro declaration
//   HandlerScanner     the dependency-free lexical scanner that finds `@handler` functions; internal to the
//                      tools (no product: a script reads the same model from `handlergen scan --format json`)
//   HandlerGenerator   renders scanned handlers into Swift through the templates in Templates/
//   handlergen         the generator as a command-line tool (what the build plugin runs)
//   HandlerKitMacros   the `@handler` compiler plugin; speaks the plugin protocol itself, no swift-syntax
//   MustacheRendering  the subset of Mustache the templates use (handlergen stays free of dependencies)
//   HandlerKitEvents   class- and instance-level events with closure and handler subscribers, saved subscriptions
//   HandlerKitSignals  durable cross-process signals (persisted handlers, delivered exactly once): the
//                      center, the rules of a delivery's life, the driver protocol and an in-memory store
//   HandlerKitSignalsInspection  what operators and their tools see of a signal store, and the repairs they make
//   HandlerKitSignalsSQLite    the signal store on SQLite (GRDB), for the processes of one machine
//   HandlerKitSignalsPostgres  the signal store on PostgreSQL (postgres-nio), for several hosts
//   HandlerKitSignalsTestKit   the conformance suite a signal store (ours or a third party's) runs
//   HandlerKitSignalsService   a signal center as a swift-service-lifecycle `Service`, for servers
//   handlerkit-signals         the command line that looks inside a signal store and repairs it
//   handlerkit-dashboard       the same as a web dashboard on a local port
//   SignalStoreOpening         what the two share: a store opened from a file path or a postgres:// URL
//   SignalSQL                  the SQL of the stores' steps, written once for the SQLite and PostgreSQL stores
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "HandlerKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "HandlerKit", targets: ["HandlerKit"]),
        .executable(name: "handlergen", targets: ["handlergen"]),
        .plugin(name: "HandlerKitPlugin", targets: ["HandlerKitPlugin"]),
        .plugin(name: "GenerateHandlers", targets: ["GenerateHandlers"]),
        .plugin(name: "UpdateHandlerBaseline", targets: ["UpdateHandlerBaseline"]),
        .library(name: "HandlerKitEvents", targets: ["HandlerKitEvents"]),
        .library(name: "HandlerKitSignals", targets: ["HandlerKitSignals"]),
        .library(name: "HandlerKitSignalsInspection", targets: ["HandlerKitSignalsInspection"]),
        .library(name: "HandlerKitSignalsSQLite", targets: ["HandlerKitSignalsSQLite"]),
        .library(name: "HandlerKitSignalsPostgres", targets: ["HandlerKitSignalsPostgres"]),
        .library(name: "HandlerKitSignalsTestKit", targets: ["HandlerKitSignalsTestKit"]),
        .library(name: "HandlerKitSignalsService", targets: ["HandlerKitSignalsService"]),
        .executable(name: "handlerkit-signals", targets: ["handlerkit-signals"]),
        .executable(name: "handlerkit-dashboard", targets: ["handlerkit-dashboard"]),
    ],
    // The PostgreSQL store's dependencies are behind this trait, off by default, so a client that does not
    // enable it (every client of the other products) neither builds nor even fetches postgres-nio and its
    // dependencies (see CONTRIBUTING.md). A client of
    // HandlerKitSignalsPostgres enables it: `.package(url: …, from: …, traits: ["PostgreSQL"])`; without
    // it, the product's types are unavailable, with a message that says so.
    // The same for the trait `ServiceLifecycle` and HandlerKitSignalsService: swift-service-lifecycle,
    // swift-async-algorithms and swift-collections are not even fetched by a client that does not
    // enable it (see CONTRIBUTING.md).
    traits: [
        .trait(name: "PostgreSQL", description: "The HandlerKitSignalsPostgres store (brings in postgres-nio)"),
        .trait(
            name: "ServiceLifecycle",
            description: "HandlerKitSignalsService's SignalCenterService (brings in swift-service-lifecycle)"),
        // The same for the operators' command line: no client of the libraries fetches swift-argument-parser.
        // `swift run --traits SignalsCommandLine handlerkit-signals status <store>` (add PostgreSQL for URLs).
        .trait(
            name: "SignalsCommandLine",
            description: "The handlerkit-signals command line (brings in swift-argument-parser)"),
        // And for the operators' web dashboard: no client of the libraries fetches Hummingbird and its
        // server stack. `swift run --traits SignalsDashboard handlerkit-dashboard <store>`.
        .trait(
            name: "SignalsDashboard",
            description: "The handlerkit-dashboard web dashboard (brings in Hummingbird)"),
    ],
    // None for the tools: every client of the build plugin compiles `handlergen` and what it depends on in
    // its clean build, so its command line is parsed by hand (Sources/handlergen/CommandLineArguments.swift) rather
    // than with swift-argument-parser, and its logic-free templates are rendered by MustacheRendering
    // rather than swift-mustache (the largest module of a plugin client's clean build, and a
    // package checkout and manifest compile for every client, even runtime-only ones). The packages
    // below serve only the products named beside them; clients of the other products do not build them.
    dependencies: [
        // SQLite for HandlerKitSignalsSQLite's store.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // PostgreSQL for HandlerKitSignalsPostgres' store; only clients of that product build it.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Its logging and byte buffers, named directly because that store uses them (postgres-nio depends
        // on both already, so they add nothing to resolve or build).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The signal center's metrics and traces (HandlerKitSignals): API-only packages without
        // dependencies; an app that bootstraps no backend gets their no-op ones.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // Graceful shutdown for HandlerKitSignalsService only, behind the trait `ServiceLifecycle`.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The handlerkit-signals command line's arguments, subcommands and help (behind its trait).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The handlerkit-dashboard web server (behind its trait): Hummingbird is a well-kept server of the
        // SwiftNIO ecosystem, small beside Vapor, and in no library product. Without its default traits,
        // which bring in swift-configuration (unused here).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // Its header types, named directly for the dashboard's own headers (Hummingbird depends on it
        // already, so it adds nothing to resolve or build).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .target(name: "HandlerKit", dependencies: ["HandlerKitMacros"]),
        .target(name: "HandlerScanner"),
        // The `@handler` compiler plugin: speaks the compiler's plugin message protocol itself (no
        // swift-syntax, so clients build fast) and validates declarations with HandlerScanner.
        .target(name: "PluginProtocol", dependencies: ["HandlerScanner"]),
        .macro(name: "HandlerKitMacros", dependencies: ["PluginProtocol"]),
        // Renders Templates/*.mustache: the subset of Mustache the templates use (variables, sections,
        // inverted sections, comments, the CONTENT_TYPE pragma), nothing else to compile.
        .target(name: "MustacheRendering"),
        .target(name: "HandlerGenerator", dependencies: ["HandlerScanner", "CHeaderReader", "MustacheRendering"]),
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
                intent: .custom(
                    verb: "generate-handlers",
                    description: "Write the generated handler file of each @handler target for review"),
                permissions: [
                    .writeToPackageDirectory(
                        reason: "Writes <Module>.handlers.swift.txt next to the target's sources (or to --output)")
                ]
            ),
            dependencies: ["handlergen"]
        ),
        // `swift package update-handler-baseline`: writes each @handler target's committed baseline,
        // `.handlers-baseline.json`, that the build plugin checks handler changes against.
        .plugin(
            name: "UpdateHandlerBaseline",
            capability: .command(
                intent: .custom(
                    verb: "update-handler-baseline",
                    description: "Write the handler baseline the build checks changes against, for each @handler target"
                ),
                permissions: [
                    .writeToPackageDirectory(reason: "Writes .handlers-baseline.json next to the target's sources")
                ]
            ),
            dependencies: ["handlergen"]
        ),
        // `swift run handlerkit-demo`: handlers made in one process, stored as JSON, called in a second.
        // Deliberately not a product: SwiftPM runs the build-tool plugins of every target that a dependency
        // package exports through its products, so a product here made every client of HandlerKit (even
        // one using only the runtime) build `handlergen` to generate the demo's file. `swift run` still
        // finds an executable target of the root package without a product.
        .executableTarget(
            name: "handlerkit-demo",
            dependencies: ["HandlerKit", "HandlerKitEvents", "HandlerKitSignals", "HandlerKitSignalsSQLite"],
            plugins: ["HandlerKitPlugin"]),
        // `swift run -c release handlerkit-bench`: the figures in Benchmarks/README.md, measured on plugin-generated code.
        .executableTarget(
            name: "handlerkit-bench",
            dependencies: [
                "HandlerKit", "HandlerKitEvents", "HandlerKitSignals", "HandlerKitSignalsSQLite",
                .product(name: "GRDB", package: "GRDB.swift"), "HandlerKitSignalsPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                "handlerkit-bench-extension",
            ],
            path: "Benchmarks/handlerkit-bench",
            plugins: ["HandlerKitPlugin"]
        ),
        // The processes `handlerkit-bench extension.` times, linking only what an app extension using
        // signals on SQLite links.
        .executableTarget(
            name: "handlerkit-bench-extension",
            dependencies: [
                "HandlerKit", "HandlerKitSignals", "HandlerKitSignalsSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/handlerkit-bench-extension",
            plugins: ["HandlerKitPlugin"]
        ),
        // libclang's C API as far as CHeaderReader uses it, loaded at run time with dlopen (never linked).
        .target(
            name: "CLibClang",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        // Reads C structs and enums from headers with libclang, for bindable C types.
        .target(name: "CHeaderReader", dependencies: ["CLibClang"]),
        // Signals: durable cross-process delivery of persisted handlers. The core knows no database: the
        // center, the rules, the driver protocol (`SignalStore`) and an in-memory store.
        // It logs through the caller's swift-log `Logger`, counts and times through swift-metrics, and
        // runs each handler in a swift-distributed-tracing span linked to the post (all no-ops until
        // the app bootstraps a backend).
        .target(
            name: "HandlerKitSignals",
            dependencies: [
                "HandlerKit", .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // A signal center as a `ServiceLifecycle.Service`: a product of its own, its dependency behind
        // the trait `ServiceLifecycle`, so that an app that does not run one (an iOS app) neither
        // builds nor fetches swift-service-lifecycle.
        .target(
            name: "HandlerKitSignalsService",
            dependencies: [
                "HandlerKitSignals", .product(name: "Logging", package: "swift-log"),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])),
            ]
        ),
        // What an operator sees of a signal store and may repair in it (`SignalStoreInspector`), and the
        // reads a store offers for it (`InspectableSignalStore`): for operators' tools, not for apps.
        .target(name: "HandlerKitSignalsInspection", dependencies: ["HandlerKit", "HandlerKitSignals"]),
        // The SQL of the signal stores' steps, written once for both SQL stores (a dialect renders what
        // differs); no dependency but the core.
        .target(name: "SignalSQL", dependencies: ["HandlerKitSignals"]),
        // The store on SQLite through GRDB: SQL, files, locks and wake-ups only.
        .target(
            name: "HandlerKitSignalsSQLite",
            dependencies: [
                "HandlerKit", "HandlerKitSignals", "HandlerKitSignalsInspection", "SignalSQL", "CHandlerKitDarwinShim",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The libSystem calls of the SQLite store (Darwin notifications, data protection, file flags):
        // the system's on Apple platforms, implemented on Linux, so the store's Swift code is one path.
        .target(name: "CHandlerKitDarwinShim"),
        // The store on PostgreSQL through postgres-nio: SQL, connections, locks and wake-ups only.
        .target(
            name: "HandlerKitSignalsPostgres",
            dependencies: [
                "HandlerKit", "HandlerKitSignals", "HandlerKitSignalsInspection", "SignalSQL",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        // The conformance suite every signal store passes, shipped for third-party stores (no test
        // framework: each check throws what it found wrong, so any framework can run it).
        .target(
            name: "HandlerKitSignalsTestKit",
            dependencies: ["HandlerKit", "HandlerKitSignals", "HandlerKitSignalsInspection"]),
        // `handlerkit-signals`: looks inside a signal store (an SQLite file, a PostgreSQL URL) and requeues
        // or discards what is stuck. Without the trait SignalsCommandLine it only says how to build it.
        .executableTarget(
            name: "handlerkit-signals",
            dependencies: [
                "HandlerKitSignals", "HandlerKitSignalsInspection", "SignalStoreOpening",
                .product(
                    name: "ArgumentParser", package: "swift-argument-parser",
                    condition: .when(traits: ["SignalsCommandLine"])),
            ]
        ),
        // What handlerkit-signals and handlerkit-dashboard share: a store opened from its path or URL,
        // read-only or for an action, and ages such as `15m`. Not a product.
        .target(
            name: "SignalStoreOpening",
            dependencies: [
                "HandlerKitSignals", "HandlerKitSignalsInspection", "HandlerKitSignalsSQLite",
                "HandlerKitSignalsPostgres", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `handlerkit-dashboard`: the same look and repairs as a web dashboard on a local port, pages of
        // HTML without scripts. Without the trait SignalsDashboard it only says how to build it.
        .executableTarget(
            name: "handlerkit-dashboard",
            dependencies: [
                "HandlerKitSignals", "HandlerKitSignalsInspection", "SignalStoreOpening", "MustacheRendering",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["SignalsDashboard"])),
                .product(
                    name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["SignalsDashboard"])),
            ]
        ),
        // Runs the built dashboard on an SQLite store with known content and drives it with headless
        // Chromium (with the trait SignalsDashboard).
        .testTarget(
            name: "HandlerKitSignalsDashboardTests",
            dependencies: [
                "HandlerKit", "HandlerKitSignals", "HandlerKitSignalsInspection", "HandlerKitSignalsSQLite",
                "HandlerKitSignalsTestKit", "SignalsTestSupport", "TestWaiting", "handlerkit-dashboard",
            ]
        ),
        // Runs the built command line on stores with known content (with the trait SignalsCommandLine).
        .testTarget(
            name: "HandlerKitSignalsCommandLineTests",
            dependencies: [
                "HandlerKit", "HandlerKitSignals", "HandlerKitSignalsInspection", "HandlerKitSignalsSQLite",
                "HandlerKitSignalsTestKit", "HandlerKitSignalsPostgres", "SignalsTestSupport", "TestWaiting",
                "handlerkit-signals",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // A test program that registers, posts and consumes signals; the tests kill it at chosen points.
        // The commands the TestKit's process checks run are the TestKit's probe (`SignalStoreProbe`).
        .executableTarget(
            name: "handlerkit-signals-probe",
            dependencies: [
                "HandlerKitSignals", "HandlerKitSignalsSQLite", "HandlerKitSignalsPostgres", "HandlerKitSignalsService",
                "HandlerKitSignalsTestKit", .product(name: "GRDB", package: "GRDB.swift"),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ],
            path: "Tests/SignalsProbe",
            plugins: ["HandlerKitPlugin"]
        ),
        // What the signal test targets share: store kinds, the probe's runner, and the scenarios each
        // target runs against its own stores (real processes killed at chosen points, app versions,
        // settle failures).
        .target(
            name: "SignalsTestSupport",
            dependencies: [
                "HandlerKit", "HandlerKitSignals", "HandlerKitSignalsSQLite", "HandlerKitSignalsTestKit", "TestWaiting",
            ],
            path: "Tests/SignalsTestSupport"
        ),
        // How every test waits for an event: polled, bounded generously, the bound scaled by
        // HANDLERKIT_TEST_TIME_SCALE for a slow machine, and what was seen said when it passes.
        .target(name: "TestWaiting", path: "Tests/TestWaiting"),
        // The signal tests that need no server: the conformance suite and the scenarios in memory and
        // on SQLite, and the SQLite store's faults.
        .testTarget(
            name: "HandlerKitSignalsTests",
            dependencies: [
                "HandlerKitSignals", "HandlerKitSignalsInspection", "HandlerKitSignalsSQLite",
                "HandlerKitSignalsTestKit", "SignalsTestSupport", "TestWaiting", "handlerkit-signals-probe",
                "CHandlerKitDarwinShim",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"), "HandlerKitSignalsService",
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        // A signal store written as a third party writes one without SQL (a JSON file, on the table
        // engine `SignalTables`), its probe, and its tests: the conformance suites and the process
        // checks. Compiled under another package name, so that they see only the public and
        // `SignalStoreDriver` API of the products, as a client of them does (`package` declarations
        // stay out of their reach).
        .target(
            name: "ThirdPartyStore",
            dependencies: ["HandlerKitSignals", "HandlerKitSignalsInspection"],
            path: "Tests/ThirdPartyStore",
            // Without `packageAccess: false`, SwiftPM passes its own `-package-name` after these flags, and
            // the last one wins.
            packageAccess: false,
            swiftSettings: [.unsafeFlags(["-package-name", "ThirdPartyStore"])]
        ),
        // The TestKit's probe over that store, as its author builds one, for the process checks.
        .executableTarget(
            name: "third-party-store-probe",
            dependencies: ["ThirdPartyStore", "HandlerKitSignalsTestKit"],
            path: "Tests/ThirdPartyStoreProbe",
            packageAccess: false,
            swiftSettings: [.unsafeFlags(["-package-name", "ThirdPartyStore"])]
        ),
        .testTarget(
            name: "ThirdPartyStoreTests",
            dependencies: [
                "HandlerKit", "HandlerKitSignals", "HandlerKitSignalsInspection", "HandlerKitSignalsTestKit",
                "TestWaiting", "ThirdPartyStore", "third-party-store-probe",
            ],
            packageAccess: false,
            swiftSettings: [.unsafeFlags(["-package-name", "ThirdPartyStore"])]
        ),
        // The signal tests that need a PostgreSQL server (and the trait): `bash Scripts/with-postgres.sh
        // swift test --enable-all-traits --filter HandlerKitSignalsPostgresTests`.
        .testTarget(
            name: "HandlerKitSignalsPostgresTests",
            dependencies: [
                "HandlerKitSignals", "HandlerKitSignalsInspection", "HandlerKitSignalsPostgres",
                "HandlerKitSignalsTestKit", "SignalsTestSupport", "TestWaiting", "handlerkit-signals-probe",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        // Compiles the Swift blocks of README.md and of every DocC article (Tests/DocumentationTests/Snippets)
        // with the build plugin, the way a client of every product compiles them, and checks that the
        // documents show them unchanged.
        .testTarget(
            name: "DocumentationTests",
            dependencies: [
                "HandlerKit", "HandlerKitEvents", "HandlerKitSignals", "HandlerKitSignalsInspection",
                "HandlerKitSignalsSQLite", "HandlerKitSignalsPostgres", "HandlerKitSignalsService",
                "HandlerKitSignalsTestKit",
                .product(name: "Logging", package: "swift-log"),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["ServiceLifecycle"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            plugins: ["HandlerKitPlugin"]
        ),
        .testTarget(name: "HandlerKitTests", dependencies: ["HandlerKit"]),
        .testTarget(name: "HandlerScannerTests", dependencies: ["HandlerScanner"]),
        .testTarget(name: "MustacheRenderingTests", dependencies: ["MustacheRendering"]),
        .testTarget(
            name: "CHeaderReaderTests",
            dependencies: ["CHeaderReader"],
            resources: [.copy("Fixtures")]
        ),
        // Depends on the macro so the plugin executable is built for its process and compiler tests.
        .testTarget(name: "PluginProtocolTests", dependencies: ["PluginProtocol", "HandlerKitMacros", "TestWaiting"]),
        .testTarget(
            name: "HandlerGeneratorTests", dependencies: ["HandlerGenerator", "handlergen"], exclude: ["References"]),
        // Compiles the generated file of a fixture module covering every handler form and calls each
        // handler through the runtime (the file is regenerated and compared by HandlerGeneratorTests).
        .testTarget(name: "GeneratedCodeTests", dependencies: ["HandlerKit"]),
        // A C target whose structs and enums handlers bind; its header is read with libclang.
        .target(name: "CFixtureTypes", path: "Tests/Fixtures/CFixtureTypes"),
        // Compiles the generated file (C type conversions included) of a fixture module binding the C
        // types of CFixtureTypes and round-trips edge values through the runtime's JSON (regenerated and
        // compared by HandlerGeneratorTests).
        .testTarget(name: "CTypeCodingTests", dependencies: ["HandlerKit", "CFixtureTypes"]),
        // Builds Tests/Fixtures/PluginClient with `swift build` (plugin + attribute on every form, and a
        // misuse) and runs the demo; depends on the demo so it is built first.
        .testTarget(name: "PluginEndToEndTests", dependencies: ["handlerkit-demo", "TestWaiting"]),
        // Events: AFFEvent's class- and instance-level events, with handler subscribers
        // that are saved and restored. The probe is a client built with the plugin: the tests run it as
        // a second process that restores saved subscriptions and sends.
        .target(name: "HandlerKitEvents", dependencies: ["HandlerKit"]),
        .executableTarget(
            name: "handlerkit-events-probe",
            dependencies: ["HandlerKitEvents"],
            path: "Tests/Fixtures/handlerkit-events-probe",
            plugins: ["HandlerKitPlugin"]
        ),
        .testTarget(name: "HandlerKitEventsTests", dependencies: ["HandlerKitEvents", "handlerkit-events-probe"]),
    ]
)
