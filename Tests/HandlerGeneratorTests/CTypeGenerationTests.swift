import Foundation
import HandlerGenerator
import HandlerScanner
import Testing

/// `handlergen` with C headers: the conversions of the C types handlers bind, generated with
/// each libclang this machine has, and every way reading the headers can fail.
@Suite struct CTypeGenerationTests {
    /// The Swift toolchain's libclang and the system's (Debian's libclang-dev), where present.
    static let libclangs: [String] = {
        var paths: [String] = []
        let searchPath = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        if let swift = searchPath.map({ "\($0)/swift" }).first(where: FileManager.default.isExecutableFile(atPath:)) {
            // <toolchain>/usr/bin/swift → <toolchain>/usr/lib/libclang.so
            paths.append(
                URL(fileURLWithPath: swift).resolvingSymlinksInPath()
                    .deletingLastPathComponent().deletingLastPathComponent().appending(path: "lib/libclang.so").path)
        }
        paths.append("/usr/lib/llvm-14/lib/libclang.so")
        return paths.filter { FileManager.default.fileExists(atPath: $0) }
    }()

    /// `handlergen arguments…` in `directory` with `environment` added to this process's.
    func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:]
    ) throws -> CommandLineTests.Run {
        let executable = try #require(CommandLineTests.executable, "handlergen not found next to the test bundle")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandLineTests.Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// A fresh folder with `files` (path → text).
    func folder(_ files: [String: String]) throws -> URL {
        try CommandLineTests().folder(files.mapValues { Array($0.utf8) })
    }

    @Test func bothLibclangsAreExercised() {
        #expect(
            Self.libclangs.count == 2, "expected the toolchain's and the system's libclang, found \(Self.libclangs)")
    }

    /// The file CTypeCodingTests compiles and runs is what handlergen writes, with either libclang
    /// (`handlergen generate --module CTypeCodingTests --no-source-locations --c-header-directory
    /// Tests/Fixtures/CFixtureTypes/include --output … Tests/CTypeCodingTests/Fixture`).
    @Test(arguments: libclangs) func compiledCFixtureFileIsUpToDate(libclang: String) throws {
        let output = FileManager.default.temporaryDirectory.appending(path: "ctypes-\(UUID().uuidString).swift")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try run(
            [
                "generate", "--module", "CTypeCodingTests", "--no-source-locations",
                "--c-header-directory", "Tests/Fixtures/CFixtureTypes/include", "--libclang", libclang,
                "--output", output.path, "Tests/CTypeCodingTests/Fixture",
            ], in: Golden.packageRoot)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let text = try String(contentsOf: output, encoding: .utf8)
        try Golden.check(text, against: "Tests/CTypeCodingTests/Generated/HandlerTable+CTypeCodingTests.swift")
    }

    /// A module with `handlers` (Swift) and `header` as `include/Types.h` of C target `CTypes`.
    func module(handlers: String, header: String) throws -> URL {
        try folder([
            "Sources/App/Handlers.swift": "import CTypes\nimport HandlerKit\n\n" + handlers,
            "Sources/CTypes/include/Types.h": header,
        ])
    }

    func generate(
        in root: URL, libclang: String? = nil, headerDirectory: String = "Sources/CTypes/include",
        environment: [String: String] = [:]
    ) throws -> CommandLineTests.Run {
        var arguments = [
            "generate", "--module", "App", "--output", "Generated.swift", "--c-header-directory", headerDirectory,
        ]
        if let libclang { arguments += ["--libclang", libclang] }
        return try run(arguments + ["Sources/App"], in: root, environment: environment)
    }

    @Test(arguments: libclangs) func unionAndPointerFieldsAreErrorsAtTheirField(libclang: String) throws {
        let root = try module(
            handlers: """
                enum H {
                    @handler static func take(value: HKBad) {}
                }
                """,
            header: """
                typedef struct {
                    union { int a; float b; } either;
                    int *numbers;
                } HKBad;
                """)
        let result = try generate(in: root, libclang: libclang)
        #expect(result.status == 1)
        let header = root.appending(path: "Sources/CTypes/include/Types.h").resolvingSymlinksInPath().path
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines.contains {
                $0.hasPrefix("\(header):2:") && $0.contains("error:") && $0.contains("HKBad") && $0.contains("union")
            }, "\(result.stderr)")
        #expect(
            lines.contains { $0.hasPrefix("\(header):3:") && $0.contains("'numbers'") && $0.contains("HKBad") },
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root.appending(path: "Generated.swift").path))
    }

    @Test(arguments: libclangs) func headerThatDoesNotParseIsReportedAtItsLine(libclang: String) throws {
        let root = try module(
            handlers: "enum H {\n    @handler static func take(value: HKBroken) {}\n}\n",
            header: "typedef struct {\n    int x y;\n} HKBroken;\n")
        let result = try generate(in: root, libclang: libclang)
        #expect(result.status == 1)
        let header = root.appending(path: "Sources/CTypes/include/Types.h").resolvingSymlinksInPath().path
        #expect(result.stderr.contains("\(header):2:"), "\(result.stderr)")
        #expect(result.stderr.contains("error: C header:"), "\(result.stderr)")
    }

    @Test(arguments: libclangs) func missingIncludedHeaderIsReportedWhereIncluded(libclang: String) throws {
        let root = try module(
            handlers: "enum H {\n    @handler static func take(value: HKPair) {}\n}\n",
            header: "#include \"Absent.h\"\ntypedef struct { int a; int b; } HKPair;\n")
        let result = try generate(in: root, libclang: libclang)
        #expect(result.status == 1)
        let header = root.appending(path: "Sources/CTypes/include/Types.h").resolvingSymlinksInPath().path
        #expect(result.stderr.contains("\(header):1:"), "\(result.stderr)")
        #expect(result.stderr.contains("Absent.h"), "\(result.stderr)")
    }

    @Test func missingHeaderDirectoryIsAnError() throws {
        let root = try module(handlers: "enum H {\n    @handler static func take(value: HKPair) {}\n}\n", header: "")
        let result = try generate(in: root, headerDirectory: "Sources/Nowhere/include")
        #expect(result.status == 1)
        #expect(result.stderr.contains("include directory not found"), "\(result.stderr)")
        #expect(result.stderr.contains("Sources/Nowhere/include"), "\(result.stderr)")
    }

    @Test func absentLibclangIsAnErrorListingThePathsTriedAndHowToInstall() throws {
        let root = try module(
            handlers: "enum H {\n    @handler static func take(value: HKPair) {}\n}\n",
            header: "typedef struct { int a; int b; } HKPair;\n")
        let explicit = try generate(in: root, libclang: "/nonexistent")
        #expect(explicit.status == 1)
        #expect(explicit.stderr.contains("libclang not found"), "\(explicit.stderr)")
        #expect(explicit.stderr.contains("/nonexistent"), "\(explicit.stderr)")
        #expect(explicit.stderr.contains("apt-get install libclang-dev"), "\(explicit.stderr)")

        let fromEnvironment = try generate(in: root, environment: ["HANDLERKIT_LIBCLANG": "/nonexistent/lib"])
        #expect(fromEnvironment.status == 1)
        #expect(fromEnvironment.stderr.contains("/nonexistent/lib"), "\(fromEnvironment.stderr)")
        #expect(fromEnvironment.stderr.contains("environment"), "\(fromEnvironment.stderr)")
    }

    /// With an unusable libclang, generation still succeeds when no handler binds a C type: libclang is
    /// never loaded. Also when a header mentions Swift type names (`String`) in comments.
    @Test func withoutCTypesLibclangIsNeverLoaded() throws {
        let root = try module(
            handlers: """
                enum H {
                    @handler static func take(count: Int, name: String?, local: LocalThing) {}
                }
                struct LocalThing: Codable {}
                """,
            header: "// A String and an Int, in a comment.\ntypedef struct { int a; } HKPair;\n")
        let result = try generate(in: root, libclang: "/nonexistent")
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOf: root.appending(path: "Generated.swift"), encoding: .utf8)
        // No conversion is generated (the sources' own `import CTypes` is repeated, as every import is).
        #expect(!text.contains("@retroactive"))
        #expect(try generate(in: root, environment: ["HANDLERKIT_LIBCLANG": "/nonexistent"]).status == 0)
    }

    @Test func candidateNamesAreBaseTypeNamesWithoutSwiftOnes() {
        let parameters = [
            "HKPoint", "HKColor?", "[HKLine]", "CPoints.HKRect", "Optional<HKSize>", "[String:HKMap]", "Int", "Handler",
        ]
        let handler = HandlerDeclaration(
            file: "a.swift", line: 1, column: 1, id: "h", hasExplicitID: false, type: nil, name: "h", kind: .global,
            instance: nil, isAsync: false, isThrows: false,
            parameters: parameters.enumerated().map { index, type in
                HandlerDeclaration.Parameter(
                    label: "p\(index)", name: "p\(index)", type: type, isOptional: false, hasDefault: false,
                    defaultValue: nil, line: 1)
            },
            conditions: [])
        #expect(
            CTypeConversions.candidateNames(in: ScanResult(handlers: [handler]))
                == ["HKColor", "HKLine", "HKMap", "HKPoint", "HKRect", "HKSize"])
    }
}
