import ArgumentParser
import HandlerGenerator

/// `handlergen generate`: what the build plugin runs.
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate the module's handler file (what the HandlerKit build plugin runs).",
        discussion: """
            Scans SOURCES (files, or directories searched recursively for .swift files) and writes one \
            Swift file: the module's HandlerTable (register it with \
            `try HandlerRegistry.shared.register(.<module>)`), a shim per handler and its \
            compiler-checked reference. The file is written only when its content changes. On errors \
            nothing is written, each error is printed to stderr as `path:line:col: error: message`, and \
            the exit status is 1.
            """
    )

    @Option(name: .long, help: "The Swift module the sources belong to (names the table: Chat → .chat).")
    var module: String

    @Option(name: .long, help: "The Swift file to write.")
    var output: String

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

    func run() throws {
        let scan = SourceSet.scanForGeneration(sources)
        Output.printWarnings(scan)
        do {
            // A scan with errors is refused with its own diagnostics before any header is read.
            let hasErrors = scan.diagnostics.contains { $0.severity == .error }
            let cTypes = try hasErrors ? CTypeConversions.none : cHeaders.conversions(for: scan)
            let text = try HandlerGenerator(moduleName: module, sourceLocations: sourceLocations)
                .generate(scan, cTypes: cTypes)
            try GeneratedFile.write(text, to: output)
        } catch {
            Output.printErrors(error)
            throw ExitCode.failure
        }
    }
}
