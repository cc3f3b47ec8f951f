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
    ],
    // None: every client of the build plugin compiles `handlergen` and what it depends on in its clean
    // build, so its command line is parsed by hand (Sources/handlergen/CommandLineArguments.swift) rather
    // than with swift-argument-parser, and its logic-free templates are rendered by MustacheRendering
    // rather than swift-mustache (issue 9: the largest module of a plugin client's clean build, and a
    // package checkout and manifest compile for every client, even runtime-only ones).
    dependencies: [],
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
                intent: .custom(verb: "generate-handlers", description: "Write the generated handler file of each @handler target for review"),
                permissions: [.writeToPackageDirectory(reason: "Writes <Module>.handlers.swift.txt next to the target's sources (or to --output)")]
            ),
            dependencies: ["handlergen"]
        ),
        // `swift run handlerkit-demo`: handlers made in one process, stored as JSON, called in a second.
        // Deliberately not a product: SwiftPM runs the build-tool plugins of every target that a dependency
        // package exports through its products, so a product here made every client of HandlerKit (even
        // one using only the runtime) build `handlergen` to generate the demo's file. `swift run` still
        // finds an executable target of the root package without a product.
        .executableTarget(name: "handlerkit-demo", dependencies: ["HandlerKit"], plugins: ["HandlerKitPlugin"]),
        // `swift run -c release handlerkit-bench`: issue 2's figures, measured on plugin-generated code.
        .executableTarget(
            name: "handlerkit-bench",
            dependencies: ["HandlerKit"],
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
        .testTarget(name: "HandlerKitTests", dependencies: ["HandlerKit"]),
        .testTarget(name: "HandlerScannerTests", dependencies: ["HandlerScanner"]),
        .testTarget(name: "MustacheRenderingTests", dependencies: ["MustacheRendering"]),
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
