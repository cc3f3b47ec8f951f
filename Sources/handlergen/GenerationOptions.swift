import ArgumentParser
import HandlerGenerator

/// What `generate` and `review` share: the module, its sources and how to render them.
struct GenerationOptions: ParsableArguments {
    @Option(name: .long, help: "The Swift module the sources belong to (names the table: Chat → .chat).")
    var module: String

    @Flag(
        inversion: .prefixedNo,
        help: "Map the user's text to the user's lines with #sourceLocation (turn off for a checked-in copy compiled from another path).")
    var sourceLocations = true

    @OptionGroup var cHeaders: CHeaderOptions

    @Argument(help: "Swift files and directories of the module.")
    var sources: [String]

    func validate() throws {
        if sources.isEmpty { throw ValidationError("give at least one source file or directory") }
    }

    /// Scans the sources and renders the module's file; prints warnings as it goes.
    func generatedText() throws -> String {
        let scan = SourceSet.scanForGeneration(sources)
        Output.printWarnings(scan)
        // A scan with errors is refused with its own diagnostics before any header is read.
        let hasErrors = scan.diagnostics.contains { $0.severity == .error }
        let cTypes = try hasErrors ? CTypeConversions.none : cHeaders.conversions(for: scan)
        return try HandlerGenerator(moduleName: module, sourceLocations: sourceLocations)
            .generate(scan, cTypes: cTypes)
    }
}
