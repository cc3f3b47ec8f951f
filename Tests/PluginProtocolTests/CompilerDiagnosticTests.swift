import Foundation
import Testing

/// The plugin as the compiler uses it: `swiftc -typecheck` with the built plugin loaded, on files
/// that declare the `@handler` macro exactly as `Sources/HandlerKit/HandlerMacro.swift` does.
@Suite("Compiler reports @handler misuse at the declaration", .serialized)
struct CompilerDiagnosticTests {
    /// One `path:line:column: severity: message` line of compiler output.
    struct Reported: Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var column: Int
        var severity: String
        var message: String

        var description: String { "\(file):\(line):\(column): \(severity): \(message)" }
    }

    /// The text of `Sources/HandlerKit/<file>`, exactly as HandlerKit declares it (the tests run from
    /// the package's checkout; a missing file fails the test instead of checking a stale copy).
    static func packageFile(_ file: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/HandlerKit/\(file)")
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// Typechecks `source` (as `Handlers.swift` of module `App`, which imports a module `HandlerKit`
    /// made of the macro declarations and the fallback) with the built plugin. With `generatedFile`,
    /// the module also has the declaration the build plugin's file adds, as when the plugin ran.
    private func typecheck(
        _ source: String, generatedFile: Bool = true
    ) async throws -> (outcome: ProcessOutcome, file: String, reported: [Reported], output: String) {
        let plugin = try #require(
            ExternalTools.pluginExecutable(),
            "the built HandlerKitMacros executable was not found; build it or set HANDLERKIT_MACROS_TOOL")
        let swiftc = try #require(ExternalTools.swiftc(), "swiftc not found; set HANDLERKIT_SWIFTC")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("CompilerDiagnosticTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let declarations = directory.appendingPathComponent("HandlerMacro.swift")
        let fallback = directory.appendingPathComponent("GeneratedFileCheck.swift")
        let handlers = directory.appendingPathComponent("Handlers.swift")
        let generated = directory.appendingPathComponent("Generated.swift")
        try Self.packageFile("HandlerMacro.swift").write(to: declarations, atomically: true, encoding: .utf8)
        try Self.packageFile("GeneratedFileCheck.swift").write(to: fallback, atomically: true, encoding: .utf8)
        try source.write(to: handlers, atomically: true, encoding: .utf8)
        try "import HandlerKit\nenum _HandlerKitGeneratedFile {}\n".write(
            to: generated, atomically: true, encoding: .utf8)
        let library = try await ChildProcess.run(
            swiftc,
            arguments: [
                "-emit-module", "-parse-as-library", "-swift-version", "6", "-module-name", "HandlerKit",
                "-emit-module-path", directory.appendingPathComponent("HandlerKit.swiftmodule").path,
                declarations.path, fallback.path,
            ],
            timeout: .seconds(120))
        #expect(
            library.status == 0, "\(String(decoding: library.standardOutput, as: UTF8.self))\(library.standardError)")
        let outcome = try await ChildProcess.run(
            swiftc,
            arguments: [
                "-typecheck", "-swift-version", "6", "-module-name", "App", "-diagnostic-style=llvm",
                "-I", directory.path, "-Xfrontend", "-import-module", "-Xfrontend", "HandlerKit",
                "-load-plugin-executable", "\(plugin.path)#HandlerKitMacros",
                handlers.path,
            ] + (generatedFile ? [generated.path] : []),
            timeout: .seconds(120))
        let output = String(decoding: outcome.standardOutput, as: UTF8.self) + outcome.standardError
        return (outcome, handlers.path, Self.parse(output), output)
    }

    /// The diagnostic lines of compiler output.
    static func parse(_ output: String) -> [Reported] {
        output.split(separator: "\n").compactMap { line -> Reported? in
            for severity in ["error", "warning", "note"] {
                guard let marker = line.range(of: ": \(severity): ") else { continue }
                let location = line[..<marker.lowerBound].split(separator: ":", omittingEmptySubsequences: false)
                guard location.count >= 3, let lineNumber = Int(location[location.count - 2]),
                    let column = Int(location[location.count - 1])
                else { continue }
                return Reported(
                    file: location.dropLast(2).joined(separator: ":"), line: lineNumber, column: column,
                    severity: severity, message: String(line[marker.upperBound...]))
            }
            return nil
        }
    }

    private static func line(of text: String, in source: String) -> Int {
        CompilerRequests(source: source).line(of: text)
    }

    static let validSource = """
        struct Account { var omemo: OMEMO }
        final class OMEMO: Sendable {}

        enum Carbons {
            @handler
            static func enabled(account: Account, iqNode: String) {}
        }

        final class Session {
            @handler(id: "session.refresh")
            class func refresh(reason: String) async throws {}
        }

        extension OMEMO {
            /// Fetched a bundle.
            @handler(instance: "account.omemo")
            func bundleFetched(account: Account, jid: String, success: Bool,
                               errorReason: String? = nil, rid: String) async throws {}

            @handler(id: "omemo.reset", instance: "account.omemo")
            func reset(account: Account) {}
        }

        enum Outer {
            enum Inner {
                @handler static func nested(value: Int) {}
            }
        }

        @handler(id: "cleanup.v1")
        func cleanUp(reason: String) {}

        @handler
        func plain() {}
        """

    @Test func correctHandlersTypecheckWithoutAnyDiagnostic() async throws {
        let result = try await typecheck(Self.validSource)
        #expect(result.outcome.exitedCleanly)
        #expect(result.outcome.status == 0, "\(result.output)")
        #expect(result.reported.isEmpty, "\(result.output)")
    }

    /// A target that uses `@handler` without the build plugin (no generated file): one error per
    /// handler, saying to add `HandlerKitPlugin`, reported in the expansion of the `@handler` at that
    /// line; the expansion's label names the module.
    @Test func withoutTheBuildPluginEachHandlerFailsAtItsAttributeNamingThePlugin() async throws {
        let result = try await typecheck(Self.validSource, generatedFile: false)
        #expect(result.outcome.exitedCleanly)
        #expect(result.outcome.status != 0, "\(result.output)")
        let errors = result.reported.filter { $0.severity == "error" }
        #expect(errors.count == 7, "\(result.output)")
        #expect(
            errors.allSatisfy {
                $0.message.contains("HandlerKit build plugin did not run")
                    && $0.message.contains(#".plugin(name: "HandlerKitPlugin", package: "HandlerKit")"#)
            }, "\(result.output)")
        let attributeLines = Self.validSource.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { $0.element.contains("@handler") }.map { $0.offset + 1 }
        let expansionNotes = result.reported.filter {
            $0.severity == "note" && $0.file == result.file && $0.message.contains("in expansion of macro 'handler'")
        }
        #expect(expansionNotes.map(\.line).sorted() == attributeLines, "\(result.output)")
        #expect(result.output.contains("_handlerKitPluginOf_App_"), "\(result.output)")
    }

    /// A handler that returns a value is refused at its arrow: the value would have nowhere to go.
    @Test func aReturnedValueIsAnErrorAtTheArrow() async throws {
        let source = """
            enum Uploads {
                @handler
                static func retry(fileID: Int) -> Bool { true }
            }
            """
        let result = try await typecheck(source)
        let errors = result.reported.filter { $0.severity == "error" }
        #expect(errors.count == 1, "\(result.output)")
        #expect(errors.first?.line == 3 && errors.first?.column == 36, "\(result.output)")
        #expect(
            errors.first?.message.hasPrefix(
                "@handler function 'retry' returns Bool, but a handler's result has nowhere to go") == true,
            "\(result.output)")
    }

    static let misuseSource = """
        enum Carbons {
            @handler
            private static func hidden(account: String) {}
        }

        final class OMEMO {
            @handler
            func fetched(account: String) {}
        }

        @handler
        func fine(value: Int) {}
        """

    @Test func misuseIsAnErrorAtTheDeclarationsLine() async throws {
        let result = try await typecheck(Self.misuseSource)
        #expect(result.outcome.exitedCleanly)
        #expect(result.outcome.status != 0, "\(result.output)")
        let errors = result.reported.filter { $0.severity == "error" }
        #expect(errors.allSatisfy { $0.file == result.file }, "\(result.output)")

        let privateLines = [
            Self.line(of: "@handler\n    private", in: Self.misuseSource),
            Self.line(of: "private static func hidden", in: Self.misuseSource),
        ]
        let privateErrors = errors.filter { $0.message.lowercased().contains("private") }
        #expect(privateErrors.count == 1, "\(result.output)")
        #expect(privateErrors.allSatisfy { privateLines.contains($0.line) }, "\(result.output)")

        let instanceLines = [
            Self.line(of: "@handler\n    func fetched", in: Self.misuseSource),
            Self.line(of: "func fetched", in: Self.misuseSource),
        ]
        let instanceErrors = errors.filter { $0.message.contains("instance") }
        #expect(instanceErrors.count == 1, "\(result.output)")
        #expect(instanceErrors.allSatisfy { instanceLines.contains($0.line) }, "\(result.output)")

        // Nothing else is reported: the correct handler and the macro declarations are clean.
        #expect(errors.count == 2, "\(result.output)")
        #expect(!result.reported.contains { $0.severity == "warning" }, "\(result.output)")
    }

    @Test func missingInstanceComesWithAFixIt() async throws {
        let result = try await typecheck(Self.misuseSource)
        // The compiler prints a fix-it as a note at the error, followed by the text it inserts.
        guard let error = result.reported.first(where: { $0.severity == "error" && $0.message.contains("instance") })
        else {
            Issue.record("no error about instance: \(result.output)")
            return
        }
        let notes = result.reported.filter {
            $0.severity == "note" && $0.line == error.line && $0.column == error.column
        }
        #expect(!notes.isEmpty, "\(result.output)")
        // Under the note, the compiler shows the text the fix-it inserts after `@handler`.
        let insertion = result.output.split(separator: "\n").contains {
            $0.trimmingCharacters(in: .whitespaces).hasPrefix("(instance:")
        }
        #expect(insertion, "\(result.output)")
    }

    /// Former names: the compiler accepts every spelling and the plugin reports a
    /// former id equal to the current one, and a rename to no parameter, at the argument.
    @Test func formerNamesAreAcceptedAndCheckedByTheCompiler() async throws {
        let source = """
            enum Carbon {
                @handler(formerly: "Carbons.enabled", "Carbons.on", renamed: ["acct": "account"])
                static func enabled(account: String, limit: Int = 3) {}
                @handler(id: "carbon.off", formerly: "Carbons.off")
                static func off() {}
                @handler(renamed: ["x": "y"])
                static func ping(a: Int) {}
                @handler(formerly: "Carbon.pong")
                static func pong() {}
            }
            """
        let result = try await typecheck(source)
        let errors = result.reported.filter { $0.severity == "error" }
        #expect(errors.map(\.line) == [6, 8], "\(result.output)")
        #expect(
            errors.first?.message.contains("maps 'x' to 'y', which is not a parameter of 'ping'") == true,
            "\(result.output)")
        #expect(errors.last?.message.contains("'Carbon.pong' is the handler's current id") == true, "\(result.output)")
        #expect(!result.reported.contains { $0.severity == "warning" }, "\(result.output)")
    }
}
