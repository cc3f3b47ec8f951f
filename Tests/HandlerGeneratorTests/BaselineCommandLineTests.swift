import Foundation
import Testing

/// `handlergen manifest` and `handlergen generate --baseline`, run as the built executable.
@Suite struct BaselineCommandLineTests {
    let tool = CommandLineTests()

    static let v1 = Array("enum Mail {\n    @handler static func fetch(box: String, limit: Int = 3) {}\n}\n".utf8)

    @Test func manifestWritesTheBaselineAndKeepsItsRules() throws {
        let root = try tool.folder(["Sources/App/Mail.swift": Self.v1])
        defer { try? FileManager.default.removeItem(at: root) }
        let first = try tool.handlergen(
            ["manifest", "--module", "App", "--output", "Sources/App/.handlers-baseline.json", "Sources/App"], in: root)
        #expect(first.status == 0, "\(first.stderr)")
        let url = root.appending(path: "Sources/App/.handlers-baseline.json")
        let written = try String(contentsOf: url, encoding: .utf8)
        #expect(
            written.contains(
                #"{"name": "box", "formerNames": [], "type": "String", "mandatory": true, "bindable": true}"#))
        try written.replacingOccurrences(of: "\"typeChanged\": \"warning\"", with: "\"typeChanged\": \"error\"")
            .write(to: url, atomically: true, encoding: .utf8)
        let second = try tool.handlergen(
            ["manifest", "--module", "App", "--output", "Sources/App/.handlers-baseline.json", "Sources/App"], in: root)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try String(contentsOf: url, encoding: .utf8).contains("\"typeChanged\": \"error\""))
        let printed = try tool.handlergen(["manifest", "--module", "App", "Sources/App"], in: root)
        #expect(printed.stdout == written)
    }

    @Test func generateReportsBreakingChangesAndWritesNothing() throws {
        let root = try tool.folder(["Sources/App/Mail.swift": Self.v1])
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try tool.handlergen(["manifest", "--module", "App", "--output", "baseline.json", "Sources/App"], in: root)
        let v2 = "enum Mail {\n    @handler static func fetch(box: Int, limit: Int = 3, n: Account) {}\n}\n"
        try v2.write(to: root.appending(path: "Sources/App/Mail.swift"), atomically: true, encoding: .utf8)
        let run = try tool.handlergen(
            ["generate", "--module", "App", "--output", "out.swift", "--baseline", "baseline.json", "Sources/App"],
            in: root)
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(run.stderr)")
        #expect(lines.allSatisfy { $0.hasPrefix("Sources/App/Mail.swift:2:5: error: ") }, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root.appending(path: "out.swift").path))
    }

    @Test func compatibleChangesGenerateSilently() throws {
        let root = try tool.folder(["Sources/App/Mail.swift": Self.v1])
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try tool.handlergen(["manifest", "--module", "App", "--output", "baseline.json", "Sources/App"], in: root)
        let v2 =
            "enum Post {\n    @handler(formerly: \"Mail.fetch\", renamed: [\"box\": \"folder\"])\n    static func fetch(folder: String, limit: Int = 3, flag: Bool? = nil) {}\n}\n"
        try v2.write(to: root.appending(path: "Sources/App/Mail.swift"), atomically: true, encoding: .utf8)
        let run = try tool.handlergen(
            ["generate", "--module", "App", "--output", "out.swift", "--baseline", "baseline.json", "Sources/App"],
            in: root)
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(FileManager.default.fileExists(atPath: root.appending(path: "out.swift").path))
    }

    @Test func aMissingBaselineIsAnError() throws {
        let root = try tool.folder(["Sources/App/Mail.swift": Self.v1])
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try tool.handlergen(
            ["generate", "--module", "App", "--output", "out.swift", "--baseline", "nowhere.json", "Sources/App"],
            in: root)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("nowhere.json:1:1: error: cannot read the handler baseline"))
    }

    /// What the build plugin passes: the check when the file exists, nothing at all when it does not.
    @Test func baselineIfPresentChecksOnlyAnExistingFile() throws {
        let root = try tool.folder(["Sources/App/Mail.swift": Self.v1])
        defer { try? FileManager.default.removeItem(at: root) }
        let arguments = [
            "generate", "--module", "App", "--output", "out.swift", "--baseline-if-present",
            "Sources/App/.handlers-baseline.json", "Sources/App",
        ]
        let without = try tool.handlergen(arguments, in: root)
        #expect(without.status == 0)
        #expect(without.stderr == "")
        _ = try tool.handlergen(
            ["manifest", "--module", "App", "--output", "Sources/App/.handlers-baseline.json", "Sources/App"], in: root)
        try "enum Mail {\n    @handler static func fetch(box: String) {}\n}\n"
            .write(to: root.appending(path: "Sources/App/Mail.swift"), atomically: true, encoding: .utf8)
        let with = try tool.handlergen(arguments, in: root)
        #expect(with.status == 0)
        #expect(with.stderr == "")
        try "enum Mail {\n    @handler static func fetch(box: String, limit: Int) {}\n}\n"
            .write(to: root.appending(path: "Sources/App/Mail.swift"), atomically: true, encoding: .utf8)
        let broken = try tool.handlergen(arguments, in: root)
        #expect(broken.status == 1)
        #expect(
            broken.stderr.hasPrefix(
                "Sources/App/Mail.swift:2:5: error: parameter 'limit' of handler 'Mail.fetch' became mandatory"),
            "\(broken.stderr)")
    }
}
