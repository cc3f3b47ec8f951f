import Foundation
import Testing

/// Handler evolution through the real plugins: documents stored by v1 of a client
/// rebuild under v2, which renames a function, a type and a parameter with former names and adds an
/// optional parameter; edits of v2 that would break stored handlers fail the build at the handler's line.
@Suite(.timeLimit(.minutes(30)))
struct EvolutionTests {
    /// The line and column of `@handler(` of `Mailbox.load` in (edited) v2, as the compiler prints it.
    static func loadAttribute(in source: String) throws -> String {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let index = try #require(lines.firstIndex { $0.contains("static func load") }) - 1
        let column = try #require(lines[index].range(of: "@handler")).lowerBound.utf16Offset(in: lines[index]) + 1
        let file = EvolutionPackage.sources.appending(path: "Handlers.swift").path(percentEncoded: false)
        return "\(file):\(index + 1):\(column)"
    }

    @Test func everyV1DocumentRebuildsAndRunsUnderV2() async throws {
        let versions = try await EvolutionPackage.shared.runVersions()
        try #require(
            versions.baselineUpdate.status == 0, "update-handler-baseline failed:\n\(versions.baselineUpdate.output)")
        let baseline = try String(contentsOf: EvolutionPackage.baseline, encoding: .utf8)
        #expect(baseline.contains(#""id": "Inbox.fetch""#), "\(baseline)")
        #expect(
            baseline.contains(
                #"{"name": "folder", "formerNames": [], "type": "String", "mandatory": true, "bindable": true}"#))
        try #require(versions.v1Build.status == 0, "v1 did not build:\n\(versions.v1Build.output)")
        #expect(
            !versions.v1Build.output.contains("warning: "), "v1 against its own baseline:\n\(versions.v1Build.output)")
        try #require(versions.v1Run.status == 0, "v1 failed:\n\(versions.v1Run.output)")
        #expect(versions.v1Run.lines.filter { $0.hasPrefix("stored: ") }.count == 2, "\(versions.v1Run.output)")

        // The compatible renames build silently against the v1 baseline.
        try #require(versions.v2Build.status == 0, "v2 did not build:\n\(versions.v2Build.output)")
        #expect(!versions.v2Build.output.contains(".handlers-baseline.json"), "\(versions.v2Build.output)")
        #expect(!versions.v2Build.output.contains("warning: "), "\(versions.v2Build.output)")
        try #require(versions.v2Run.status == 0, "v2 failed on v1's documents:\n\(versions.v2Run.output)")
        #expect(
            versions.v2Run.lines == [
                "ran: archive box=old",
                #"saved: {"bound":{"box":"old"},"id":"archive","version":1}"#,
                "ran: Mailbox.load box=inbox limit=3 unread=false",
                #"saved: {"bound":{"box":"inbox","limit":3},"id":"Mailbox.load","invalidation":"Mailbox.cancel","version":1}"#,
                "ran: Mailbox.cancel box=inbox",
                "rebuilt: 2 documents",
            ])
    }

    /// Each edit of v2, and the start of the error it must give at `Mailbox.load`'s `@handler` line.
    static let breakingEdits: [(name: String, from: String, to: String, error: String)] = [
        (
            "id renamed without a former id", #"formerly: "Inbox.fetch", "#, "",
            "error: handler id 'Inbox.fetch' (Inbox.fetch) of the baseline is gone and 'Mailbox.load' is new"
        ),
        (
            "parameter renamed without a former name", #"(formerly: "Inbox.fetch", renamed: ["folder": "box"])"#,
            #"(formerly: "Inbox.fetch")"#,
            "error: parameter 'folder' of handler 'Mailbox.load' is gone and 'box', 'unread' are new: if 'box' is 'folder' renamed"
        ),
        (
            "new mandatory parameter", "unread: Bool = false", "unread: Bool",
            "error: new parameter 'unread' of handler 'Mailbox.load' is mandatory"
        ),
        (
            "type whose JSON differs", "limit: Int,", "limit: String,",
            "error: parameter 'limit' of handler 'Mailbox.load' changed type from 'Int' to 'String'"
        ),
        (
            "bindable parameter made unbindable", "load(box: String,", "load(box: @escaping @Sendable () -> String,",
            "error: parameter 'box' (formerly 'folder') of handler 'Mailbox.load' was bindable ('String')"
        ),
    ]

    @Test(arguments: breakingEdits.indices)
    func aBreakingEditFailsTheBuildAtTheHandlersLine(index: Int) async throws {
        let edit = Self.breakingEdits[index]
        let (build, source) = try await EvolutionPackage.shared.buildV2 {
            $0.replacingOccurrences(of: edit.from, with: edit.to)
        }
        #expect(!source.contains(edit.from), "\(edit.name): the edit did not apply")
        #expect(build.status != 0, "\(edit.name) built:\n\(build.output)")
        let expected = try Self.loadAttribute(in: source) + ": " + edit.error
        #expect(build.lines.contains { $0.hasPrefix(expected) }, "\(edit.name): no '\(expected)' in:\n\(build.output)")
    }

    @Test func aTypeChangeThatMayStillDecodeBuildsWithAWarning() async throws {
        let (build, source) = try await EvolutionPackage.shared.buildV2 {
            $0.replacingOccurrences(of: "limit: Int,", with: "limit: Int64,")
        }
        #expect(build.status == 0, "\(build.output)")
        let expected =
            try Self.loadAttribute(in: source)
            + ": warning: parameter 'limit' of handler 'Mailbox.load' changed type from 'Int' to 'Int64'"
        #expect(build.lines.contains { $0.hasPrefix(expected) }, "no '\(expected)' in:\n\(build.output)")
    }

    @Test func aRemovedHandlerFailsTheBuildAtItsLineInTheBaseline() async throws {
        let (build, _) = try await EvolutionPackage.shared.buildV2 { source in
            String(source[..<source.range(of: "@handler\nfunc archive")!.lowerBound])
        }
        #expect(build.status != 0, "\(build.output)")
        let baseline = try String(contentsOf: EvolutionPackage.baseline, encoding: .utf8)
        let line =
            try #require(
                baseline.split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
                    $0.contains(#""id": "archive""#)
                }) + 1
        let expected =
            EvolutionPackage.baseline.path(percentEncoded: false)
            + ":\(line):1: error: handler 'archive' (archive) of the baseline no longer exists"
        #expect(build.lines.contains { $0.hasPrefix(expected) }, "no '\(expected)' in:\n\(build.output)")
    }
}
