// The Swift block of the overview of HandlerKitSignalsTestKit (HandlerKitSignalsTestKit.docc/
// HandlerKitSignalsTestKit.md; see ArticleSnippetTests). Its test is disabled: the store's own tests run
// the suite.
import HandlerKitSignals

// snippet: conformance
import Foundation
import HandlerKitSignalsTestKit
import Testing

// end snippet
/// A store of your own, here the in-memory one.
func MyStore(url: String, schema: String) throws -> InMemorySignalStore {
    InMemorySignalStore(name: "\(url)/\(schema)")
}

@Suite(.disabled("the snippet of a document; HandlerKitSignalsTests runs the suite on every store"))
struct HandlerKitSignalsTestKitArticle {
    let testURL = "memory://conformance"

    // snippet: conformance
    @Test(arguments: SignalStoreConformance.checks)
    func conforms(_ check: SignalStoreConformance.Check) async throws {
        try await check.run { try MyStore(url: testURL, schema: "conformance_\(UUID().uuidString.prefix(8))") }
    }
    // end snippet
}

// The probe's main.swift: its import, and its statement as the body of a function here (top-level
// code compiles only in a main.swift).
// snippet: probe
import HandlerKitSignalsTestKit

// end snippet
func myStoreProbeMain() async {
    // snippet: probe
    await SignalStoreProbe.main(arguments: CommandLine.arguments) { opening in
        try MyStore(url: opening.value(of: "--url") ?? "", schema: opening.value(of: "--schema") ?? "")
    }
    // end snippet
}

@Suite(.disabled("the snippet of a document; HandlerKitSignalsTests runs the checks on SQLite"))
struct HandlerKitSignalsTestKitProcessArticle {
    let testURL = "memory://processes"
    let probeURL = URL(fileURLWithPath: "/usr/local/bin/my-store-probe")

    // snippet: processes
    @Test(arguments: SignalStoreProcessChecks.checks)
    func survivesCrashes(_ check: SignalStoreProcessChecks.Check) async throws {
        let schema = "processes_\(UUID().uuidString.prefix(8))"
        try await check.run(
            probe: probeURL,
            storeArguments: { _ in ["--url", testURL, "--schema", schema] },
            openStore: { _ in try MyStore(url: testURL, schema: schema) })
    }
    // end snippet
}
