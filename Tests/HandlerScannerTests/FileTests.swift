import Foundation
import HandlerScanner
import Testing

/// Files and directories: bytes that are not text, unreadable files, ordering, relative names, and the
/// module-wide duplicate check across files.
@Suite("Files")
struct FileTests {
    /// A fresh temporary directory, removed by the caller.
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("scanner-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    @Test func invalidUTF8IsADiagnosticAtTheBadByte() {
        let bytes = Array("@handler func a() {}\nlet s = \"".utf8) + [0xC3, 0x28] + Array("\"\n".utf8)
        let result = SourceScanner.scan(bytes: bytes, file: "bad.swift")
        #expect(result.handlers.isEmpty)
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics.first?.line == 2)
        #expect(result.diagnostics.first?.column == 10)
        #expect(result.diagnostics.first?.message.contains("not valid UTF-8") == true)
        #expect(result.diagnostics.first?.message.contains("save it with UTF-8") == true)
    }

    @Test func malformedUTF8Forms() {
        let cases: [[UInt8]] = [
            [0x80], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF8],
            [0xE2, 0x82], [0xFF, 0xFE],
        ]
        for bad in cases {
            let result = SourceScanner.scan(bytes: Array("let x = 1 ".utf8) + bad, file: "x.swift")
            #expect(result.diagnostics.first?.message.contains("UTF-8") == true, "\(bad)")
            #expect(result.diagnostics.first?.column == 11, "\(bad)")
        }
        let good = SourceScanner.scan(bytes: Array("let é = \"😀 ✓\"\n@handler func a() {}".utf8), file: "x.swift")
        #expect(good.diagnostics == [])
        #expect(good.handlers.count == 1)
    }

    @Test func badBytesAreFoundAtEveryOffsetOfTheWordAtATimeCheck() {
        for offset in 0..<80 {
            let prefix = Array(repeating: UInt8(ascii: "a"), count: offset)
            let suffix = Array(repeating: UInt8(ascii: "b"), count: 40)
            let invalid = SourceScanner.scan(bytes: prefix + [0xFF] + suffix, file: "x.swift").diagnostics
            #expect(invalid.map(\.column) == [offset + 1], "invalid at \(offset)")
            let nul = SourceScanner.scan(bytes: prefix + [0x00] + suffix, file: "x.swift").diagnostics
            #expect(nul.map(\.column) == [offset + 1], "NUL at \(offset)")
            #expect(nul.first?.message.contains("binary") == true)
            let valid = SourceScanner.scan(bytes: prefix + Array("é😀".utf8) + suffix, file: "x.swift").diagnostics
            #expect(valid == [], "valid at \(offset)")
        }
    }

    @Test func binaryFilesAreADiagnostic() {
        let bytes: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x00, 0x00, 0x40, 0x00]
        let result = SourceScanner.scan(bytes: bytes, file: "blob.swift")
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics.first?.message.contains("looks binary") == true)
        let source = SourceScanner.scan(source: "let a = 1\u{0}", file: "nul.swift")
        #expect(source.diagnostics.first?.message.contains("NUL") == true)
        #expect(source.diagnostics.first?.column == 10)
    }

    @Test func emptyAndWhitespaceFiles() {
        #expect(SourceScanner.scan(bytes: [], file: "e.swift") == ScanResult())
        #expect(SourceScanner.scan(source: "\n\n  \t\n", file: "e.swift") == ScanResult())
    }

    @Test func randomBytesNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("@handler func(){}[]<>\"#/\\*`'\n ().,:;=!?-static class struct extension #if #endif".utf8)
        for _ in 0..<300 {
            let length = Int.random(in: 0..<200, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0x20 }
            _ = SourceScanner.scan(bytes: bytes, file: "fuzz.swift")
            if let text = String(validating: bytes, as: UTF8.self) {
                _ = SourceScanner.scanDeclaration(text, file: "f.swift", line: 1, column: 1, context: .fileScope)
            }
        }
        let truncated = [
            "@handler(", "@handler(id:", "@handler func", "@handler func f(", "@handler func f(a",
            "@handler func f(a:", "@handler func f(a: Int =", "@handler func f<", "@handler func f() ->",
            "\"\\(", "#if \"\\", "let s = #\"\\#", "#\"", "#/", "/*", "`", "#if", "@handler(id: \"\\u{",
            "@handler(id: \"\\u{110000}\")",
        ]
        for text in truncated {
            let result = scan(text)
            #expect(result.handlers.isEmpty, "\(text) \(result.handlers)")
        }
    }

    @Test func directoriesAreScannedRecursivelySortedAndRelative() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try write("@handler func b() {}\n", to: root.appendingPathComponent("Sources/B.swift"))
        try write("enum A {\n  @handler static func a() {}\n}\n", to: root.appendingPathComponent("Sources/A.swift"))
        try write("@handler func nested() {}\n", to: root.appendingPathComponent("Sources/Sub/Dir/C.swift"))
        try write("@handler func ignored() {}\n", to: root.appendingPathComponent("Sources/notes.txt"))
        try write("@handler func hidden() {}\n", to: root.appendingPathComponent("Sources/.build/X.swift"))
        let result = SourceScanner.scan(paths: [root.appendingPathComponent("Sources").path], relativeTo: root.path)
        #expect(result.diagnostics == [])
        #expect(result.handlers.map(\.file) == ["Sources/A.swift", "Sources/B.swift", "Sources/Sub/Dir/C.swift"])
        #expect(result.handlers.map(\.id) == ["A.a", "b", "nested"])

        let unrelative = SourceScanner.scan(
            paths: [root.appendingPathComponent("Sources/B.swift").path], relativeTo: nil)
        #expect(unrelative.handlers.map(\.file) == [root.appendingPathComponent("Sources/B.swift").path])
        let explicitFile = SourceScanner.scan(
            paths: [root.appendingPathComponent("Sources/notes.txt").path], relativeTo: root.path)
        #expect(explicitFile.handlers.map(\.file) == ["Sources/notes.txt"])
    }

    @Test func aFileNamedTwiceIsScannedOnce() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try write("@handler func once() {}\n", to: root.appendingPathComponent("Sources/A.swift"))
        let sources = root.appendingPathComponent("Sources").path
        let result = SourceScanner.scan(
            paths: [sources, sources + "/A.swift", sources + "/./A.swift", sources + "/"], relativeTo: root.path)
        #expect(result.diagnostics == [])
        #expect(result.handlers.map(\.file) == ["Sources/A.swift"])
    }

    @Test func duplicateIDsAcrossFilesAreReportedAtBothPlaces() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try write("\n@handler(id: \"same\") func a() {}\n", to: root.appendingPathComponent("A.swift"))
        try write(
            "enum E {\n  @handler(id: \"same\") static func b() {}\n}\n", to: root.appendingPathComponent("B.swift"))
        let result = SourceScanner.scan(paths: [root.path], relativeTo: root.path)
        #expect(result.handlers.count == 2)
        #expect(result.diagnostics.map(\.file) == ["A.swift", "B.swift"])
        #expect(result.diagnostics.map(\.line) == [2, 2])
        #expect(result.diagnostics.map(\.column) == [1, 3])
        #expect(result.diagnostics[0].message.contains("also declared at B.swift:2:3"))
        #expect(result.diagnostics[1].message.contains("also declared at A.swift:2:1"))
    }

    @Test func missingUnreadableAndBadFilesAreDiagnosticsInFileOrder() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try write("@handler func ok() {}\n", to: root.appendingPathComponent("B.swift"))
        try Data([0xFF, 0xFE, 0x00]).write(to: root.appendingPathComponent("C.swift"))
        let unreadable = root.appendingPathComponent("D.swift")
        try write("@handler func hidden() {}\n", to: unreadable)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: unreadable.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: unreadable.path) }
        let isRoot = getuid() == 0
        let result = SourceScanner.scan(
            paths: [root.appendingPathComponent("A.swift").path, root.path], relativeTo: root.path)
        #expect(result.handlers.map(\.id) == (isRoot ? ["ok", "hidden"] : ["ok"]))
        let files = result.diagnostics.map(\.file)
        #expect(files == (isRoot ? ["A.swift", "C.swift"] : ["A.swift", "C.swift", "D.swift"]))
        #expect(result.diagnostics.first?.message.contains("cannot read this file (no such file or directory)") == true)
        #expect(result.diagnostics.allSatisfy { $0.severity == .error && $0.line == 1 })
    }

    @Test func aDirectoryCannotBeReadAsAFile() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        // A directory whose name ends in .swift is a directory, searched, not read.
        try write("@handler func inside() {}\n", to: root.appendingPathComponent("Weird.swift/X.swift"))
        let result = SourceScanner.scan(paths: [root.path], relativeTo: root.path)
        #expect(result.diagnostics == [])
        #expect(result.handlers.map(\.file) == ["Weird.swift/X.swift"])
    }
}
