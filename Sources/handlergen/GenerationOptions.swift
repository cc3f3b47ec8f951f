import HandlerGenerator

/// What `generate` and `review` share: the module, its sources and how to render them.
struct GenerationOptions {
    static let moduleOption = OptionSpec(
        name: "module", kind: .value(placeholder: "module"), isRequired: true,
        help: "The Swift module the sources belong to (names the table: Chat → .chat).")
    static let sourceLocationsFlag = OptionSpec(
        name: "source-locations", kind: .flag(default: true),
        help:
            "Map the user's text to the user's lines with #sourceLocation (turn off for a checked-in copy compiled from another path). (default: --source-locations)"
    )
    static let sourcesArgument = ArgumentSpec(
        name: "sources", help: "Swift files and directories of the module.",
        whenMissing: "give at least one source file or directory")

    /// The options of a command that generates, `output` (which differs between them) after the module.
    static func options(output: OptionSpec) -> [OptionSpec] {
        [moduleOption, output, sourceLocationsFlag] + CHeaderOptions.options
    }

    var module: String
    var sourceLocations: Bool
    var cHeaders: CHeaderOptions
    var sources: [String]

    init(_ arguments: CommandLineArguments) throws(UsageError) {
        module = try arguments.requiredValue(of: Self.moduleOption)
        sourceLocations = arguments.isOn(Self.sourceLocationsFlag)
        cHeaders = CHeaderOptions(arguments)
        sources = arguments.positionals
    }

    /// Scans the sources and renders the module's file; prints warnings as it goes.
    /// With `baseline`, the handlers are first checked against that committed baseline.
    func generatedText(checkingAgainst baseline: String? = nil) throws -> String {
        let scan = SourceSet.scanForGeneration(sources)
        Output.printWarnings(scan)
        // A scan with errors is refused with its own diagnostics before any header is read.
        let hasErrors = scan.diagnostics.contains { $0.severity == .error }
        if !hasErrors, let baseline { try BaselineOption.check(scan, module: module, baseline: baseline) }
        let cTypes = try hasErrors ? CTypeConversions.none : cHeaders.conversions(for: scan)
        return try HandlerGenerator(moduleName: module, sourceLocations: sourceLocations)
            .generate(scan, cTypes: cTypes)
    }
}
