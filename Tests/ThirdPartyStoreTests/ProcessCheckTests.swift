#if os(Linux) || os(macOS)
import Foundation
import HandlerKitSignalsTestKit
import Testing
import ThirdPartyStore

/// The shipped process checks (`SignalStoreProcessChecks`) against the JSON file store, with its
/// author's probe (`third-party-store-probe`, built beside the tests): processes killed at chosen
/// points and run at once lose no delivery and complete none twice.
@Suite("Third-party store: the process checks on a JSON file", .serialized)
struct ProcessCheckTests {
    /// The probe, found beside the test bundle in the build folder.
    static let probe: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appending(path: "third-party-store-probe", directoryHint: .notDirectory)
            if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    @Test(arguments: SignalStoreProcessChecks.checks)
    func processes(_ check: SignalStoreProcessChecks.Check) async throws {
        let probe = try #require(Self.probe, "third-party-store-probe is built beside the test bundle")
        let figures = try await check.run(
            probe: probe,
            storeArguments: { folder in ["--folder", folder.appending(path: "store").path(percentEncoded: false)] },
            openStore: { folder in
                try JSONFileSignalStore(folder: folder.appending(path: "store").path(percentEncoded: false))
            })
        if !figures.isEmpty { print("signals.kill_test store=json \(figures)") }
    }
}
#endif
