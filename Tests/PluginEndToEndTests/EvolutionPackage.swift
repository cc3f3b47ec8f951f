import Foundation

/// The fixture `Tests/Fixtures/Evolution`, copied to `.build-e2e/Evolution` with its
/// path to HandlerKit made absolute, its `Sources/Mailer` filled with the files of one version at a
/// time, and built into `.build-e2e/evolution-scratch`: every version and variant reuses that folder, so
/// after the first build only the `Mailer` module and its generated file are redone.
///
/// Steps run one at a time, in the order they are asked for (they share the package copy).
actor EvolutionPackage {
    static let shared = EvolutionPackage()

    static let fixtureSource = FixturePackage.repositoryRoot.appending(
        path: "Tests/Fixtures/Evolution", directoryHint: .isDirectory)
    static let packageCopy = FixturePackage.workFolder.appending(path: "Evolution", directoryHint: .isDirectory)
    static let scratch = FixturePackage.workFolder.appending(path: "evolution-scratch", directoryHint: .isDirectory)
    static let documents = FixturePackage.workFolder.appending(path: "evolution-documents", directoryHint: .isDirectory)
    static let sources = packageCopy.appending(path: "Sources/Mailer", directoryHint: .isDirectory)
    static let baseline = sources.appending(path: ".handlers-baseline.json", directoryHint: .notDirectory)
    static let executable = scratch.appending(path: "debug/Mailer", directoryHint: .notDirectory)

    /// What v1 and v2 did.
    struct Versions: Sendable {
        var baselineUpdate: Subprocess
        var v1Build: Subprocess
        var v1Run: Subprocess
        var v2Build: Subprocess
        var v2Run: Subprocess
    }

    private var versions: Task<Versions, any Error>?
    private var last: Task<Void, Never>?

    /// Writes the v1 baseline, builds and runs v1 (storing its documents), then builds v2 and runs it on them.
    func runVersions() async throws -> Versions {
        if let versions { return try await versions.value }
        let task = enqueue {
            try Self.prepare()
            try Self.use(version: "v1")
            try? FileManager.default.removeItem(at: Self.baseline)
            let baselineUpdate = try await Self.swift([
                "package", "--allow-writing-to-package-directory", "update-handler-baseline",
            ])
            let v1Build = try await Self.swift(["build"])
            guard v1Build.status == 0 else { throw VersionBuildFailed(version: "v1", output: v1Build.output) }
            try? FileManager.default.removeItem(at: Self.documents)
            try FileManager.default.createDirectory(at: Self.documents, withIntermediateDirectories: true)
            let v1Run = try await Subprocess.run(
                Self.executable, [Self.documents.path(percentEncoded: false)], timeLimit: 120)
            try Self.use(version: "v2")
            let v2Build = try await Self.swift(["build"])
            guard v2Build.status == 0 else { throw VersionBuildFailed(version: "v2", output: v2Build.output) }
            let v2Run = try await Subprocess.run(
                Self.executable, [Self.documents.path(percentEncoded: false)], timeLimit: 120)
            return Versions(
                baselineUpdate: baselineUpdate, v1Build: v1Build, v1Run: v1Run, v2Build: v2Build, v2Run: v2Run)
        }
        versions = task
        return try await task.value
    }

    /// Builds v2 with `Handlers.swift` edited by `edit` (after the versions ran), and the edited text.
    func buildV2(
        editing edit: @escaping @Sendable (String) -> String
    ) async throws -> (build: Subprocess, source: String) {
        _ = try await runVersions()
        return try await enqueue {
            let original = try String(
                contentsOf: Self.fixtureSource.appending(path: "v2/Handlers.swift"), encoding: .utf8)
            let edited = edit(original)
            try Self.write(Data(edited.utf8), to: Self.sources.appending(path: "Handlers.swift"))
            return (try await Self.swift(["build"]), edited)
        }.value
    }

    /// Starts `body` once the step before it has ended.
    private func enqueue<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        let previous = last
        let task = Task {
            await previous?.value
            return try await body()
        }
        last = Task { _ = try? await task.value }
        return task
    }

    private static func swift(_ arguments: [String]) async throws -> Subprocess {
        let scratchPath = ["--scratch-path", scratch.path(percentEncoded: false)]
        let withScratch =
            arguments.first == "package" ? ["package"] + scratchPath + arguments.dropFirst() : arguments + scratchPath
        return try await Subprocess.run(
            command: "swift", withScratch, in: packageCopy, timeLimit: FixturePackage.buildTimeLimit)
    }

    /// The manifest, pointing at this HandlerKit.
    private static func prepare() throws {
        let fingerprint = try FixtureCopy.sourceFingerprint(root: FixturePackage.repositoryRoot)
        let manifest = try Data(contentsOf: fixtureSource.appending(path: "Package.swift"))
        try write(
            FixtureCopy.pointingAtHandlerKit(manifest, root: FixturePackage.repositoryRoot, fingerprint: fingerprint),
            to: packageCopy.appending(path: "Package.swift"))
    }

    /// Puts the files of `version` (`v1`, `v2`) in `Sources/Mailer`, keeping the baseline.
    private static func use(version: String) throws {
        for name in ["Handlers.swift", "main.swift"] {
            try write(
                Data(contentsOf: fixtureSource.appending(path: "\(version)/\(name)")), to: sources.appending(path: name)
            )
        }
    }

    /// Writes `data` unless the file holds it already (an unchanged file keeps its date).
    private static func write(_ data: Data, to url: URL) throws {
        if FileManager.default.contents(atPath: url.path(percentEncoded: false)) == data { return }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }
}

/// A version of the fixture that did not build: its output, instead of a missing executable later.
struct VersionBuildFailed: Error, CustomStringConvertible {
    let version: String
    let output: String
    var description: String { "\(version) of the evolution fixture did not build:\n\(output)" }
}
