import ArgumentParser
import Foundation
import HandlerGenerator

/// `handlergen review`: writes the generated file where a person can read it.
struct Review: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the generated handler file next to the sources (or to --output) for review.",
        discussion: """
            Generates exactly what `generate` would for SOURCES. Without --output the file goes next to \
            the first SOURCE (into it when it is a directory) as <module>.handlers.swift.txt: the .txt \
            keeps SwiftPM from compiling it beside the build plugin's copy. `--output -` prints it. \
            Errors are printed as `path:line:col: error: message` and give exit status 1.
            """
    )

    @Option(name: .long, help: "The Swift module the sources belong to.")
    var module: String

    @Option(name: .long, help: "Where to write the file; '-' for standard output.")
    var output: String?

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
            let destination = output ?? defaultDestination()
            if destination == "-" {
                print(text, terminator: "")
            } else {
                try GeneratedFile.write(text, to: destination)
                print("wrote \(destination)")
            }
        } catch {
            Output.printErrors(error)
            throw ExitCode.failure
        }
    }

    private func defaultDestination() -> String {
        let first = sources.first ?? "."
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: first, isDirectory: &isDirectory)
        let directory = exists && isDirectory.boolValue ? first : (first as NSString).deletingLastPathComponent
        let name = "\(module).handlers.swift.txt"
        return directory.isEmpty ? name : (directory as NSString).appendingPathComponent(name)
    }
}
