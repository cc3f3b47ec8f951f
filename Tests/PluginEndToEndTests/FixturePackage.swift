import Foundation

/// The fixture client package `Tests/Fixtures/PluginClient`, copied to `.build-e2e/PluginClient` at
/// the repository root (building in place would leave `Package.resolved` and `.swiftpm` in the
/// repository) with its path to HandlerKit made absolute, and built there with `swift build` into
/// `.build-e2e/scratch`.
///
/// The folder is fixed, not temporary, so that a second test run rebuilds incrementally; files are
/// copied only when their content changed, to keep their modification dates. The first (clean)
/// build takes one to two minutes on two cores; the builds run one at a time and each result is
/// shared by every test that needs it.
actor FixturePackage {
    static let shared = FixturePackage()

    /// The repository root: this file is `Tests/PluginEndToEndTests/FixturePackage.swift`.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let fixtureSource = repositoryRoot.appending(
        path: "Tests/Fixtures/PluginClient", directoryHint: .isDirectory)
    static let workFolder = repositoryRoot.appending(path: ".build-e2e", directoryHint: .isDirectory)
    static let packageCopy = workFolder.appending(path: "PluginClient", directoryHint: .isDirectory)
    static let scratch = workFolder.appending(path: "scratch", directoryHint: .isDirectory)

    /// A clean build of the fixture compiles HandlerKit, its macro and handlergen with their
    /// dependencies: allow for a slow, shared machine.
    static let buildTimeLimit: TimeInterval = 1_200

    private var prepared = false
    /// Every build, by its arguments: each runs once and its result is shared.
    private var builds: [String: Task<Subprocess, any Error>] = [:]
    /// The last command started: the next one waits for it (builds share the scratch folder).
    private var last: Task<Void, Never>?

    /// The result of `swift build ARGUMENTS` in the fixture copy, run once per argument list.
    func build(_ arguments: [String]) async throws -> Subprocess {
        let key = arguments.joined(separator: " ")
        if let build = builds[key] { return try await build.value }
        let build = try enqueue(["build", "--scratch-path", Self.scratch.path(percentEncoded: false)] + arguments)
        builds[key] = build
        return try await build.value
    }

    /// The `PluginClient` builds: a first build, then two more without changes, queued together so
    /// that no other command runs between them.
    struct ClientBuilds: Sendable {
        var build: Subprocess
        /// After a clean build SwiftPM relinks the plugin's tool once more, so the plugin's command
        /// reruns; the generated file is not rewritten, so nothing is recompiled.
        var firstRebuild: Subprocess
        /// A true no-op.
        var secondRebuild: Subprocess
        var executable: URL
    }

    private var clientBuilds: Task<ClientBuilds, any Error>?

    /// Builds the `PluginClient` executable (once per test run) and rebuilds it twice.
    func buildClient() async throws -> ClientBuilds {
        if let clientBuilds { return try await clientBuilds.value }
        let arguments = [
            "build", "--scratch-path", Self.scratch.path(percentEncoded: false), "--product", "PluginClient",
        ]
        let builds = try (enqueue(arguments), enqueue(arguments), enqueue(arguments))
        let executable = Self.scratch.appending(path: "debug/PluginClient", directoryHint: .notDirectory)
        let task = Task {
            ClientBuilds(
                build: try await builds.0.value, firstRebuild: try await builds.1.value,
                secondRebuild: try await builds.2.value, executable: executable)
        }
        clientBuilds = task
        return try await task.value
    }

    /// Runs `swift ARGUMENTS` in the fixture copy, after the commands started before it.
    func swift(_ arguments: [String]) async throws -> Subprocess {
        try await enqueue(arguments).value
    }

    /// Starts `swift ARGUMENTS` once the command before it has ended.
    private func enqueue(_ arguments: [String]) throws -> Task<Subprocess, any Error> {
        try prepare()
        let previous = last
        let task = Task {
            await previous?.value
            return try await Subprocess.run(
                command: "swift", arguments, in: Self.packageCopy, timeLimit: Self.buildTimeLimit)
        }
        last = Task { _ = try? await task.value }
        return task
    }

    /// Copies the fixture into `packageCopy`, once per test run.
    private func prepare() throws {
        guard !prepared else { return }
        let fingerprint = try FixtureCopy.sourceFingerprint(root: Self.repositoryRoot)
        try FixtureCopy.mirror(Self.fixtureSource, to: Self.packageCopy) { relativePath, data in
            guard relativePath == "Package.swift" else { return data }
            return try FixtureCopy.pointingAtHandlerKit(data, root: Self.repositoryRoot, fingerprint: fingerprint)
        }
        prepared = true
    }
}
