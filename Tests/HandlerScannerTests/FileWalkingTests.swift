import Foundation
import HandlerScanner
import Testing

/// How paths are walked and read (POSIX directory walking and file reading): links, hidden
/// names, path spellings that name one file, files larger than one read, and read failures.
@Suite("File walking")
struct FileWalkingTests {
    private let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("walking-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    private func write(_ text: String, _ relative: String) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    private func link(_ relative: String, to destination: String) throws {
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent(relative).path, withDestinationPath: destination)
    }

    private func scan(_ paths: [String], relativeTo: String?) -> ScanResult {
        SourceScanner.scan(paths: paths, relativeTo: relativeTo)
    }

    @Test func linksToFilesAreScannedAndLinksToDirectoriesAreNotFollowed() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("@handler func inside() {}\n", "other/Inside.swift")
        try write("@handler func target() {}\n", "other/Target.swift")
        try write("@handler func plain() {}\n", "tree/Plain.swift")
        try link("tree/Linked.swift", to: "../other/Target.swift")
        try link("tree/folder", to: "../other")
        let tree = root.appendingPathComponent("tree").path
        let result = scan([tree], relativeTo: tree)
        #expect(result.handlers.map(\.file) == ["Linked.swift", "Plain.swift"])
        #expect(result.handlers.map(\.name) == ["target", "plain"])
        #expect(result.diagnostics.isEmpty)
        // A linked directory named on the command line is walked.
        let linked = root.appendingPathComponent("tree/folder").path
        #expect(scan([linked], relativeTo: linked).handlers.map(\.file) == ["Inside.swift", "Target.swift"])
    }

    @Test func aBrokenLinkIsAnUnreadableFile() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("@handler func plain() {}\n", "tree/Plain.swift")
        try link("tree/Broken.swift", to: "nowhere.swift")
        let tree = root.appendingPathComponent("tree").path
        let result = scan([tree], relativeTo: tree)
        #expect(result.handlers.map(\.name) == ["plain"])
        #expect(result.diagnostics.map(\.file) == ["Broken.swift"])
        #expect(result.diagnostics.first?.message.contains("(No such file or directory)") == true)
    }

    @Test func hiddenNamesAndOtherExtensionsAreSkippedButADirectoryNamedSwiftIsWalked() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("@handler func a() {}\n", "tree/.hidden/A.swift")
        try write("@handler func b() {}\n", "tree/.B.swift")
        try write("@handler func c() {}\n", "tree/C.txt")
        try write("@handler func d() {}\n", "tree/folder.swift/D.swift")
        let tree = root.appendingPathComponent("tree").path
        #expect(scan([tree], relativeTo: tree).handlers.map(\.file) == ["folder.swift/D.swift"])
    }

    @Test func spellingsOfOneFileAreScannedOnceAndKeepTheirSpelling() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("@handler func a() {}\n", "tree/sub/A.swift")
        let tree = root.appendingPathComponent("tree").path
        let spellings = [tree + "/./sub//A.swift", tree + "/sub/A.swift", tree + "/sub/../sub/A.swift", tree + "/sub/"]
        let result = scan(spellings, relativeTo: nil)
        // The first spelling given is the one kept.
        #expect(result.handlers.count == 1)
        #expect(result.handlers.first?.file == tree + "/./sub//A.swift")
        // Relative to a base spelled differently, a file inside it gets its plain relative name.
        #expect(scan([tree + "/sub/A.swift"], relativeTo: tree + "/./sub/..").handlers.first?.file == "sub/A.swift")
        // A file given as the base itself is named by its last component.
        #expect(scan([tree + "/sub/A.swift"], relativeTo: tree + "/sub/A.swift").handlers.first?.file == "A.swift")
    }

    @Test func filesLargerThanOneReadAreReadWhole() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let padding = String(repeating: "// filler line to make the file long\n", count: 5_000)
        try write(padding + "@handler func last() {}\n", "Big.swift")
        try write("", "Empty.swift")
        let result = scan([root.path], relativeTo: root.path)
        #expect(result.handlers.map(\.name) == ["last"])
        #expect(result.handlers.first?.line == 5_001)
        #expect(result.diagnostics.isEmpty)
    }

    /// Enough files that they are scanned on several threads: results and diagnostics still come in
    /// path order, exactly as one file at a time gives them.
    @Test func manyFilesGiveTheSameResultsInPathOrder() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        var expectedFiles: [String] = []
        var expectedDiagnostics: [String] = []
        for index in 0..<150 {
            let name = "F\(String(index, radix: 7)).swift"
            if index % 10 == 3 {
                try write("@handler private func bad\(index)() {}\n", name)
                expectedDiagnostics.append(name)
            } else {
                try write("// file \(index)\n@handler func h\(index)(value: Int) {}\n", name)
                expectedFiles.append(name)
            }
        }
        let result = scan([root.path], relativeTo: root.path)
        #expect(result.handlers.map(\.file) == expectedFiles.sorted())
        #expect(result.diagnostics.map(\.file) == expectedDiagnostics.sorted())
        for handler in result.handlers {
            let bytes = try [UInt8](Data(contentsOf: root.appendingPathComponent(handler.file)))
            #expect(SourceScanner.scan(bytes: bytes, file: handler.file).handlers == [handler])
        }
    }

    /// `.swift` paths given directly are opened without a `stat` first (the build plugin names every
    /// file of a target); one that is a directory or missing is still walked or reported exactly as
    /// when every path is asked first, whatever the other paths are.
    @Test func swiftPathsThatAreNoFilesAreWalkedOrReportedLikeAnyOther() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try write("@handler func a() {}\n", "A.swift")
        try write("@handler func d() {}\n", "folder.swift/D.swift")
        let a = root.appendingPathComponent("A.swift").path
        let folder = root.appendingPathComponent("folder.swift").path
        let missing = root.appendingPathComponent("Missing.swift").path
        let walked = scan([a, folder], relativeTo: nil)
        #expect(walked.handlers.map(\.file) == [a, folder + "/D.swift"])
        #expect(walked.diagnostics.isEmpty)
        let reported = scan([missing, a, missing, root.path + "/./Missing.swift"], relativeTo: nil)
        #expect(reported.handlers.map(\.name) == ["a"])
        #expect(reported.diagnostics.map(\.file) == [root.path + "/./Missing.swift", missing, missing])
        #expect(reported.diagnostics.allSatisfy { $0.message.contains("(no such file or directory)") })
        // Absolute file paths as the plugin passes them, one spelled twice: scanned once.
        let plugin = scan([folder + "/D.swift", a, root.path + "//A.swift"], relativeTo: nil)
        #expect(plugin.handlers.map(\.file) == [a, folder + "/D.swift"])
    }
}
