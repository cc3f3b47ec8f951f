import Foundation
import PackagePlugin

/// The HandlerKit build-tool plugin: before a target is compiled, `handlergen generate` scans its
/// Swift sources for `@handler` functions and writes one Swift file — the module's `HandlerTable`, a
/// shim per handler and its compiler-checked reference — which is compiled with the target.
///
/// The plugin only describes the command; the work is done by `handlergen` (and the HandlerGenerator
/// library behind it). The command is deterministic: sources in path order, one output at a fixed
/// path. Every source file and the `handlergen` executable are inputs, so editing a source or
/// rebuilding the generator reruns it; `handlergen` rewrites the file only when its content changes,
/// so an edit that does not touch a handler recompiles nothing more. Misuse makes `handlergen` exit
/// non-zero after printing `path:line:col: error: message` lines for the user's files, which the
/// build shows as the build's errors.
@main
struct HandlerKitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SwiftSourceModuleTarget else { return [] }
        let sources = target.sourceFiles(withSuffix: "swift").map(\.url)
        var command = GenerationCommand(
            moduleName: target.moduleName,
            sources: sources,
            workDirectory: context.pluginWorkDirectoryURL,
            tool: try context.tool(named: "handlergen").url
        )
        // C targets the module depends on (directly or not): handlers may bind their structs and enums.
        let cTargets = target.recursiveTargetDependencies.compactMap { $0 as? ClangSourceModuleTarget }
            .sorted { $0.name < $1.name }
        command.cHeaderDirectories = cTargets.compactMap(\.publicHeadersDirectoryURL)
            .filter { FileManager.default.fileExists(atPath: $0.path(percentEncoded: false)) }
        command.cHeaders = command.cHeaderDirectories.flatMap(Self.headers(under:))
            .sorted { $0.path(percentEncoded: false) < $1.path(percentEncoded: false) }
        // Named whether it exists or not: SwiftPM may keep the commands a plugin described across builds,
        // so a baseline committed later is found by `handlergen` when it runs, not by the plugin.
        command.baseline = target.directoryURL.appending(path: ".handlers-baseline.json", directoryHint: .notDirectory)
        command.baselineFolder = target.directoryURL
        return [command.command]
    }

    /// The `.h` files under `directory`, recursively.
    static func headers(under directory: URL) -> [URL] {
        guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
            return []
        }
        return files.compactMap { $0 as? URL }.filter { $0.pathExtension == "h" }
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

extension HandlerKitPlugin: XcodeBuildToolPlugin {
    /// The same command for a target of an Xcode project: its Swift source files, and its product's
    /// module name.
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
        let sources = target.inputFiles
            .filter { $0.type == .source && $0.url.pathExtension == "swift" }
            .map(\.url)
        return [
            try GenerationCommand(
                moduleName: GenerationCommand.moduleName(forProductNamed: target.product?.name ?? target.displayName),
                sources: sources,
                workDirectory: context.pluginWorkDirectoryURL,
                tool: context.tool(named: "handlergen").url
            ).command
        ]
    }
}
#endif
