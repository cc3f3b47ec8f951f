import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory generate-handlers [--target T]… [--output PATH] [--no-source-locations]`: writes the
/// file the HandlerKit build plugin generates where a person can read it, via `handlergen review`.
///
/// Without `--target` it takes every Swift target of the package that depends on HandlerKit and has
/// `@handler` functions (as `handlergen scan` finds them). Without `--output` each file goes next to
/// its target's sources as `<Module>.handlers.swift.txt` (the `.txt` keeps SwiftPM from compiling it
/// beside the build plugin's copy). `--output PATH` names the file for a single target (`-` prints
/// it), or a folder (existing, or ending in `/`) that receives one file per target; a relative PATH is
/// relative to the package.
@main
struct GenerateHandlers: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let targetNames = extractor.extractOption(named: "target")
        let outputs = extractor.extractOption(named: "output")
        let noSourceLocations = extractor.extractFlag(named: "no-source-locations") > 0
        guard extractor.remainingArguments.isEmpty, outputs.count <= 1 else {
            throw ReviewError.usage(
                "unexpected arguments \(extractor.remainingArguments); usage: swift package --allow-writing-to-package-directory generate-handlers "
                    + "[--target TARGET]… [--output PATH] [--no-source-locations]")
        }
        let package = context.package
        let tool = try context.tool(named: "handlergen").url
        let targets = try ReviewTargets.select(named: targetNames, in: package, tool: tool)
        guard !targets.isEmpty else {
            throw ReviewError.usage("no target of \(package.displayName) uses @handler; name one with --target")
        }
        let destinations = try ReviewDestination(
            output: outputs.first, packageDirectory: package.directoryURL, targetCount: targets.count)
        var failed: [String] = []
        for target in targets {
            let output = destinations.outputArgument(for: target)
            var arguments = ["review", "--module", target.moduleName, "--output", output]
            if noSourceLocations { arguments.append("--no-source-locations") }
            arguments += CHeaderDirectories.of(target).flatMap {
                ["--c-header-directory", $0.path(percentEncoded: false)]
            }
            arguments += target.sourceFiles(withSuffix: "swift").map { $0.url.path(percentEncoded: false) }.sorted()
            // A target with errors does not stop the others; its errors are printed by handlergen.
            if try ToolRun.run(tool, arguments: arguments) != 0 { failed.append(target.name) }
        }
        if destinations.isNextToSources && failed.count < targets.count {
            print(
                "note: SwiftPM reports a .txt file in a target's folder as unhandled until it is removed; "
                    + "delete it after review, or write it elsewhere with --output")
        }
        if !failed.isEmpty { throw ReviewError.toolFailed(targets: failed) }
    }
}
