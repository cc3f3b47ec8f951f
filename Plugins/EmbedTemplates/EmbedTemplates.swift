import Foundation
import PackagePlugin

/// Embeds the generator's templates (`Templates/*.mustache` at the package root) into the target as
/// Swift string constants.
///
/// Templates are not resources on purpose: SwiftPM does not rebuild a target when a resource changes
/// (SwiftPM#5982). Here every template file is an input of the build command, so editing one re-runs
/// the tool and recompiles the target on the next build.
@main
struct EmbedTemplates: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let templates = context.package.directoryURL.appending(path: "Templates", directoryHint: .isDirectory)
        let names = try FileManager.default.contentsOfDirectory(atPath: templates.path(percentEncoded: false))
            .filter { $0.hasSuffix(".mustache") }
            .sorted()
        let inputs = names.map { templates.appending(path: $0, directoryHint: .notDirectory) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedTemplates.swift", directoryHint: .notDirectory)
        let tool = try context.tool(named: "EmbedTemplatesTool")
        return [
            .buildCommand(
                displayName: "Embedding \(names.count) templates into \(target.name)",
                executable: tool.url,
                arguments: [output.path(percentEncoded: false)] + inputs.map { $0.path(percentEncoded: false) },
                inputFiles: inputs + [tool.url],
                outputFiles: [output]
            )
        ]
    }
}
