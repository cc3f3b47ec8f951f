import Foundation
import PackagePlugin

/// The `handlergen generate` build command for one module: the same for SwiftPM and Xcode targets.
struct GenerationCommand {
    /// The Swift module whose handlers are generated (names the table: `Chat` → `.chat`).
    let moduleName: String
    /// The module's Swift source files.
    let sources: [URL]
    /// The plugin's work folder for this target; the generated file goes there.
    let workDirectory: URL
    /// The `handlergen` executable.
    let tool: URL
    /// The public header directories of the module's C dependencies, whose structs and enums handlers
    /// may bind, and the headers in them (inputs, so editing one reruns the command).
    var cHeaderDirectories: [URL] = []
    var cHeaders: [URL] = []
    /// Where the target's committed handler baseline (`.handlers-baseline.json`) is: when the file exists,
    /// the handlers are checked against it.
    var baseline: URL?
    /// The folder that holds `baseline`: an input (a file that may be missing cannot be one), so that
    /// writing, replacing or removing the baseline (which changes the folder) reruns the command.
    var baselineFolder: URL?

    /// The one file the command writes: its name is fixed by the module, so the output is known
    /// before the command runs and never changes between builds.
    var output: URL {
        workDirectory.appending(path: "HandlerTable+\(moduleName).generated.swift", directoryHint: .notDirectory)
    }

    /// Sources in path order, so the command line (and with it the build's key) is stable.
    var sortedSources: [URL] {
        sources.sorted { $0.path(percentEncoded: false) < $1.path(percentEncoded: false) }
    }

    /// The command line after the tool:
    /// `generate --module M --output FILE [--c-header-directory DIR…] [--baseline-if-present FILE] SOURCES…`.
    var arguments: [String] {
        ["generate", "--module", moduleName, "--output", output.path(percentEncoded: false)]
            + cHeaderDirectories.flatMap { ["--c-header-directory", $0.path(percentEncoded: false)] }
            + (baseline.map { ["--baseline-if-present", $0.path(percentEncoded: false)] } ?? [])
            + sortedSources.map { $0.path(percentEncoded: false) }
    }

    /// The build command. A module without Swift sources still gets its (empty) table, so code
    /// that registers it keeps compiling while handlers come and go.
    var command: Command {
        .buildCommand(
            displayName: "Generating HandlerKit handlers for \(moduleName)",
            executable: tool,
            arguments: arguments,
            inputFiles: sortedSources + cHeaders + (baselineFolder.map { [$0] } ?? []) + Self.templates + [tool],
            outputFiles: [output]
        )
    }

    /// HandlerKit's templates, which `handlergen` reads when it runs (found next to this file, as
    /// SwiftPM and Xcode compile plugins from the package's sources). They are inputs, so an edited
    /// template regenerates the file on the next build; edited resources would not (SwiftPM#5982).
    static let templates: [URL] = {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Templates", directoryHint: .isDirectory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path(percentEncoded: false))) ?? []
        return names.filter { $0.hasSuffix(".mustache") }.sorted()
            .map { folder.appending(path: $0, directoryHint: .notDirectory) }
    }()

    /// A module name for a product name as Xcode derives it: every character that cannot appear in
    /// an identifier becomes `_`, and a leading digit gets a `_` before it.
    static func moduleName(forProductNamed name: String) -> String {
        var result = String(
            name.unicodeScalars.map { scalar in
                let isIdentifier =
                    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                    || ("0"..."9").contains(scalar) || scalar == "_"
                return isIdentifier ? Character(scalar) : "_"
            })
        if result.isEmpty { return "_" }
        if let first = result.unicodeScalars.first, ("0"..."9").contains(first) { result = "_" + result }
        return result
    }
}
