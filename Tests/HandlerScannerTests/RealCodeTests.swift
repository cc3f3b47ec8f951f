import Foundation
import HandlerScanner
import Testing

/// Real Swift code exported from the local package mirror: no `@handler` in it, so nothing may be found
/// and nothing may be an error; `@handler` declarations spliced into it are found at the right lines.
@Suite("Real code", .enabled(if: RealCode.mirrorAvailable, "needs the package mirror under /opt/swift-packages"))
struct RealCodeTests {
    @Test func argumentParserAndNIOHaveNoHandlersAndNoErrors() throws {
        let corpus = try RealCode.export()
        defer { try? FileManager.default.removeItem(at: corpus) }
        let result = SourceScanner.scan(paths: [corpus.path], relativeTo: corpus.path)
        #expect(result.handlers == [])
        #expect(result.diagnostics == [])
        let files = FileManager.default.enumerator(atPath: corpus.path)?.allObjects.compactMap { $0 as? String }
        #expect((files?.filter { $0.hasSuffix(".swift") && !$0.contains("/.") }.count ?? 0) > 300)
    }

    @Test func handlersSplicedIntoRealCodeAreFound() throws {
        let corpus = try RealCode.export()
        defer { try? FileManager.default.removeItem(at: corpus) }
        let originals = [
            "swift-nio/Sources/NIOCore/ByteBuffer-core.swift",
            "swift-nio/Sources/NIOPosix/SelectableEventLoop.swift",
            "swift-argument-parser/Sources/ArgumentParser/Parsing/ArgumentSet.swift",
        ]
        let output = corpus.appendingPathComponent("spliced")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        var expected: [(file: String, line: Int, id: String)] = []
        for (index, original) in originals.enumerated() {
            let text = try String(contentsOf: corpus.appendingPathComponent(original), encoding: .utf8)
            var lines = text.components(separatedBy: "\n")
            // After the first top-level closing brace: a file-scope handler.
            let closing = try #require(lines.firstIndex(of: "}"))
            lines.insert(
                "@handler(id: \"spliced.\(index).global\") func splicedGlobal\(index)(value: Int) {}", at: closing + 1)
            // At the end: an extension with a static and an instance handler.
            lines.append("extension Spliced\(index).Inner {")
            lines.append("    @handler static func staticOne(name: String? = nil) async throws {}")
            lines.append("    @handler(instance: \"value.box\") func instanceOne(value: Box) {}")
            lines.append("}")
            let name = "File\(index).swift"
            try Data(lines.joined(separator: "\n").utf8).write(to: output.appendingPathComponent(name))
            expected.append((name, closing + 2, "spliced.\(index).global"))
            expected.append((name, lines.count - 2, "Spliced\(index).Inner.staticOne"))
            expected.append((name, lines.count - 1, "Spliced\(index).Inner.instanceOne"))
        }
        let result = SourceScanner.scan(paths: [output.path], relativeTo: output.path)
        #expect(result.diagnostics == [])
        #expect(result.handlers.map(\.file) == expected.map(\.file))
        #expect(result.handlers.map(\.line) == expected.map(\.line))
        #expect(result.handlers.map(\.id) == expected.map(\.id))
        #expect(
            result.handlers.map(\.kind) == [
                .global, .static, .instance, .global, .static, .instance, .global, .static, .instance,
            ])
    }
}

/// Exports the real-code corpus with `git archive` into a fresh temporary directory.
enum RealCode {
    static let mirror = "/opt/swift-packages"
    static let packages = [
        (name: "swift-argument-parser", repository: "apple/swift-argument-parser", tag: "1.8.2"),
        (name: "swift-nio", repository: "apple/swift-nio", tag: "2.101.3"),
    ]

    static var mirrorAvailable: Bool {
        packages.allSatisfy { FileManager.default.fileExists(atPath: "\(mirror)/\($0.repository).git") }
    }

    static func export() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scanner-real-code-\(UUID().uuidString)")
        for package in packages {
            let target = root.appendingPathComponent(package.name)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            let archive = root.appendingPathComponent("\(package.name).tar")
            try run([
                "git", "-C", "\(mirror)/\(package.repository).git", "archive", "--format=tar", "-o", archive.path,
                package.tag,
            ])
            try run(["tar", "-xf", archive.path, "-C", target.path])
            try FileManager.default.removeItem(at: archive)
        }
        return root
    }

    struct CommandFailed: Error, CustomStringConvertible {
        var command: [String]
        var status: Int32
        var description: String { "\(command.joined(separator: " ")) exited with \(status)" }
    }

    private static func run(_ command: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CommandFailed(command: command, status: process.terminationStatus)
        }
    }
}
