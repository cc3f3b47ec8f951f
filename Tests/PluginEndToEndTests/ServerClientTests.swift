import Foundation
import Testing

/// A server target through the real plugin: `Tests/Fixtures/ServerClient` depends on
/// HandlerKitSignalsPostgres with the `PostgreSQL` trait (postgres-nio, swift-nio-ssl and BoringSSL,
/// whose headers libclang cannot parse on their own), and its handlers take `Data`, `Date`, `URL`,
/// `UUID`, `Decimal` and a type of its own. It is copied to `.build-e2e/ServerClient` and built into
/// `.build-e2e/server-scratch`: the first build compiles the PostgreSQL store's dependencies, later
/// ones only what changed.
@Suite(.timeLimit(.minutes(60)))
struct ServerClientTests {
    static let fixtureSource = FixturePackage.repositoryRoot.appending(
        path: "Tests/Fixtures/ServerClient", directoryHint: .isDirectory)
    static let packageCopy = FixturePackage.workFolder.appending(path: "ServerClient", directoryHint: .isDirectory)
    static let scratch = FixturePackage.workFolder.appending(path: "server-scratch", directoryHint: .isDirectory)
    /// A clean build compiles BoringSSL and swift-nio besides HandlerKit: allow for a slow, shared machine.
    static let buildTimeLimit: TimeInterval = 3_600

    @Test func handlersTakingFoundationTypesBuildBesideThePostgreSQLStore() async throws {
        let fingerprint = try FixtureCopy.sourceFingerprint(root: FixturePackage.repositoryRoot)
        try FixtureCopy.mirror(Self.fixtureSource, to: Self.packageCopy) { relativePath, data in
            guard relativePath == "Package.swift" else { return data }
            return try FixtureCopy.pointingAtHandlerKit(
                data, root: FixturePackage.repositoryRoot, fingerprint: fingerprint)
        }
        let build = try await Subprocess.run(
            command: "swift",
            ["build", "--scratch-path", Self.scratch.path(percentEncoded: false), "--target", "ServerHandlers"],
            in: Self.packageCopy, timeLimit: Self.buildTimeLimit)
        #expect(!build.timedOut, "the build ran past \(Int(Self.buildTimeLimit)) s")
        #expect(build.status == 0, "ServerHandlers did not build:\n\(build.output)")
        #expect(!build.output.contains("error:"), "\(build.output)")
        #expect(!build.output.contains("C header"), "\(build.output)")

        let generated = try #require(
            Self.file(
                named: "HandlerTable+ServerHandlers.generated.swift",
                under: Self.scratch.appending(path: "plugins/outputs")),
            "the plugin wrote no generated file")
        let text = try String(contentsOf: generated, encoding: .utf8)
        for id in ["ServerHandlers.store", "ServerHandlers.schedule", "ServerHandlers.bill"] {
            #expect(text.contains("\"\(id)\""), "\(id) is missing from the generated file")
        }
        #expect(!text.contains("@retroactive"), "no C type conversion is generated")
    }

    /// The first file called `name` under `folder`.
    static func file(named name: String, under folder: URL) -> URL? {
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            if url.lastPathComponent == name { return url }
        }
        return nil
    }
}
