import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory update-handler-baseline [--target T]…`: writes (or updates) each target's committed
/// handler baseline, `.handlers-baseline.json` next to its sources, via `handlergen manifest`
///. Run it after reviewing a change the build reported, to accept it; the build
/// plugin then checks later changes against the new baseline. The file's `rules` are kept.
///
/// Without `--target` it takes every Swift target of the package that depends on HandlerKit and whose
/// sources mention `@handler`.
@main
struct UpdateHandlerBaseline: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        guard extractor.remainingArguments.isEmpty else {
            throw BaselineError(
                "unexpected arguments \(extractor.remainingArguments); usage: swift package --allow-writing-to-package-directory "
                    + "update-handler-baseline [--target TARGET]…")
        }
        let tool = try context.tool(named: "handlergen").url
        let targets = try Self.targets(named: names, in: context.package)
        guard !targets.isEmpty else {
            throw BaselineError("no target of \(context.package.displayName) uses @handler; name one with --target")
        }
        var failed: [String] = []
        for target in targets {
            let output = target.directoryURL.appending(path: ".handlers-baseline.json", directoryHint: .notDirectory)
            let sources = target.sourceFiles(withSuffix: "swift").map { $0.url.path(percentEncoded: false) }.sorted()
            let process = Process()
            process.executableURL = tool
            process.arguments =
                ["manifest", "--module", target.moduleName, "--output", output.path(percentEncoded: false)] + sources
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus == 0 {
                print("wrote \(output.path(percentEncoded: false))")
            } else {
                failed.append(target.name)
            }
        }
        if !failed.isEmpty {
            throw BaselineError("no baseline written for \(failed.joined(separator: ", ")): fix the errors above")
        }
    }

    /// The targets named, or every Swift target that depends on HandlerKit and mentions `@handler`.
    static func targets(named names: [String], in package: Package) throws -> [SwiftSourceModuleTarget] {
        if !names.isEmpty {
            return try package.targets(named: names).map { target in
                guard let swiftTarget = target as? SwiftSourceModuleTarget else {
                    throw BaselineError("\(target.name) is not a Swift target")
                }
                return swiftTarget
            }
        }
        return package.targets.compactMap { $0 as? SwiftSourceModuleTarget }
            .filter { target in
                target.recursiveTargetDependencies.contains { $0.name == "HandlerKit" }
                    && target.sourceFiles(withSuffix: "swift").contains { file in
                        FileManager.default.contents(atPath: file.url.path(percentEncoded: false))
                            .map { String(decoding: $0, as: UTF8.self).contains("@handler") } ?? false
                    }
            }
            .sorted { $0.name < $1.name }
    }
}

/// Why the command stopped, as SwiftPM prints it.
struct BaselineError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
