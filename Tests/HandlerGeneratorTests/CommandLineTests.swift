import Foundation
import Testing

/// `handlergen` run as the built executable (the test target depends on it, so it is built first).
@Suite struct CommandLineTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `handlergen` next to the test bundle in the build folder.
    static let executable: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appending(path: "handlergen")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    func handlergen(_ arguments: [String], in directory: URL) throws -> Run {
        let executable = try #require(Self.executable, "handlergen not found next to the test bundle")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// A fresh folder with `files` (path → contents).
    func folder(_ files: [String: [UInt8]]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appending(path: "handlergen-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (path, bytes) in files {
            let url = root.appending(path: path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        return root
    }

    static let carbons = Array(
        """
        enum Carbons {
            @handler
            static func enabled(account: String, limit: Int = 10) {}
        }

        """.utf8)

    /// `path:line:col: error: message`.
    static func isCompilerStyle(_ line: String) -> Bool {
        line.wholeMatch(of: #/.+:\d+:\d+: error: .+/#) != nil
    }

    @Test func generateWritesOnlyWhenContentChanges() throws {
        let root = try folder(["Sources/Chat/Carbons.swift": Self.carbons])
        defer { try? FileManager.default.removeItem(at: root) }
        let output = root.appending(path: "out/Handlers.swift")
        let arguments = ["generate", "--module", "Chat", "--output", output.path, "Sources/Chat"]

        let first = try handlergen(arguments, in: root)
        #expect(first.status == 0, "\(first.stderr)")
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(text.contains("public static let chat: HandlerTable"))
        #expect(text.contains("#sourceLocation(file: \"Sources/Chat/Carbons.swift\", line: 3)"))

        // Unchanged content: the file is not rewritten (its old modification date stays).
        let old = Date(timeIntervalSince1970: 1_000_000)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: output.path)
        let second = try handlergen(arguments, in: root)
        #expect(second.status == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: output.path)
        #expect(attributes[.modificationDate] as? Date == old)

        // Changed sources: rewritten.
        try Data((String(decoding: Self.carbons, as: UTF8.self) + "@handler func extra() {}\n").utf8)
            .write(to: root.appending(path: "Sources/Chat/Carbons.swift"))
        let third = try handlergen(arguments, in: root)
        #expect(third.status == 0)
        #expect(try String(contentsOf: output, encoding: .utf8).contains("extraHandlerDescriptor"))
    }

    @Test func generateRefusesDuplicatesWithCompilerStyleErrors() throws {
        let root = try folder([
            "A.swift": Array("@handler(id: \"x\")\nfunc a() {}\n".utf8),
            "B.swift": Array("\n\n@handler(id: \"x\")\nfunc b() {}\n".utf8),
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try handlergen(
            ["generate", "--module", "App", "--output", "G.swift", "A.swift", "B.swift"], in: root)
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(run.stderr)")
        #expect(lines.allSatisfy { Self.isCompilerStyle($0) }, "\(run.stderr)")
        #expect(lines.first?.hasPrefix("A.swift:1:1: error: ") == true, "\(run.stderr)")
        #expect(lines.last?.hasPrefix("B.swift:3:1: error: ") == true, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root.appending(path: "G.swift").path))
    }

    @Test func generateReportsMissingAndBinaryFiles() throws {
        let root = try folder(["Bad.swift": [0x66, 0x75, 0x6E, 0x63, 0x00, 0xFF, 0xFE, 0x0A]])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try handlergen(
            ["generate", "--module", "App", "--output", "G.swift", "Bad.swift", "Missing.swift"], in: root)
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("Bad.swift:") && $0.contains(": error: ") }, "\(run.stderr)")
        #expect(lines.contains { $0.hasPrefix("Missing.swift:") && $0.contains(": error: ") }, "\(run.stderr)")
        #expect(lines.allSatisfy { Self.isCompilerStyle($0) }, "\(run.stderr)")
    }

    @Test func misuseOfTheCommandLineExitsNonZero() throws {
        let root = try folder([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let noModule = try handlergen(["generate", "--output", "G.swift", "."], in: root)
        #expect(noModule.status == 64)
        let noSources = try handlergen(["generate", "--module", "App", "--output", "G.swift"], in: root)
        #expect(noSources.status == 64)
        let badModule = try handlergen(["generate", "--module", "My-App", "--output", "G.swift", "."], in: root)
        #expect(badModule.status == 1)
        #expect(badModule.stderr.contains(": error: module name 'My-App' is not a Swift identifier"))
        let badFormat = try handlergen(["scan", "--format", "xml", "."], in: root)
        #expect(badFormat.status == 64)
    }

    @Test func scanJSONNamesFilesRelativeToEachPath() throws {
        let root = try folder([
            "Sources/Chat/Carbons.swift": Self.carbons,
            "Sources/Chat/Nested/Deeper/Cleanup.swift": Array(
                "@handler(id: \"cleanup.v1\")\nfunc cleanUp(reason: String) {}\n".utf8),
            "Sources/Chat/.hidden/Skip.swift": Array("@handler func skipped() {}\n".utf8),
            "Sources/Chat/NotSwift.txt": Array("@handler func no() {}\n".utf8),
            "Other.swift": Array("enum O { @handler static func o() {} }\n".utf8),
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try handlergen(["scan", "--format", "json", "Sources/Chat", "Other.swift"], in: root)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout == #"""
                {"handlers":[{"file":"Carbons.swift","line":2,"id":"Carbons.enabled","type":"Carbons","name":"enabled","kind":"static","instance":null,"async":false,"throws":false,"parameters":[{"label":"account","name":"account","type":"String","optional":false,"hasDefault":false},{"label":"limit","name":"limit","type":"Int","optional":false,"hasDefault":true}]},{"file":"Nested/Deeper/Cleanup.swift","line":1,"id":"cleanup.v1","type":null,"name":"cleanUp","kind":"global","instance":null,"async":false,"throws":false,"parameters":[{"label":"reason","name":"reason","type":"String","optional":false,"hasDefault":false}]},{"file":"Other.swift","line":1,"id":"O.o","type":"O","name":"o","kind":"static","instance":null,"async":false,"throws":false,"parameters":[]}],"diagnostics":[]}

                """#)
    }

    @Test func scanReportsInvalidUTF8WithoutCrashing() throws {
        let root = try folder([
            "Good.swift": Self.carbons,
            "Latin1.swift": Array("// caf".utf8) + [0xE9] + Array("\n@handler func f() {}\n".utf8),
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try handlergen(["scan", "--format", "text", "."], in: root)
        #expect(run.status == 1)
        #expect(run.stdout.contains("Good.swift:2: Carbons.enabled  static"), "\(run.stdout)")
        #expect(run.stdout.contains("Latin1.swift:1:"), "\(run.stdout)")
        #expect(run.stdout.hasSuffix("1 handler, 1 error\n"), "\(run.stdout)")
    }

    @Test func reviewWritesNextToTheSourcesOrPrints() throws {
        let root = try folder(["Sources/Chat/Carbons.swift": Self.carbons])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try handlergen(["review", "--module", "Chat", "Sources/Chat"], in: root)
        #expect(run.status == 0, "\(run.stderr)")
        let written = root.appending(path: "Sources/Chat/Chat.handlers.swift.txt")
        let text = try String(contentsOf: written, encoding: .utf8)
        let printed = try handlergen(["review", "--module", "Chat", "--output", "-", "Sources/Chat"], in: root)
        #expect(printed.stdout == text)
        let generated = try handlergen(
            ["generate", "--module", "Chat", "--output", "G.swift", "Sources/Chat"], in: root)
        #expect(generated.status == 0)
        #expect(try String(contentsOf: root.appending(path: "G.swift"), encoding: .utf8) == text)
    }

    @Test func helpDocumentsTheJSONShape() throws {
        let run = try handlergen(["scan", "--help"], in: FileManager.default.temporaryDirectory)
        #expect(run.status == 0)
        #expect(
            run.stdout.contains(
                #"{"handlers":[{"file","line","id","type","name","kind","instance","async","throws","parameters":[{"label","name","type","optional","hasDefault"}]}],"diagnostics":[{"file","line","severity","message"}]}"#
            ))
    }
}

extension CommandLineTests {
    @Test func unwritableOutputIsACompilerStyleError() throws {
        let root = try folder(["A.swift": Self.carbons, "Taken/keep": []])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try handlergen(["generate", "--module", "App", "--output", "Taken", "A.swift"], in: root)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("Taken:1:1: error: cannot write the generated file"), "\(run.stderr)")
    }

    @Test func scanOfAMissingPathReportsIt() throws {
        let root = try folder([:])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try handlergen(["scan", "--format", "json", "Nowhere"], in: root)
        #expect(run.status == 1)
        #expect(run.stdout.hasPrefix(#"{"handlers":[],"diagnostics":[{"file":"Nowhere","line":"#), "\(run.stdout)")
    }
}
