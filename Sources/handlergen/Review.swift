import Foundation
import HandlerGenerator

/// `handlergen review`: writes the generated file where a person can read it.
struct Review: Subcommand {
    static let outputOption = OptionSpec(
        name: "output", kind: .value(placeholder: "file"), help: "Where to write the file; '-' for standard output.")

    static let spec = CommandSpec(
        name: "review",
        abstract: "Write the generated handler file next to the sources (or to --output) for review.",
        discussion: """
            Generates exactly what `generate` would for SOURCES. Without --output the file goes next to \
            the first SOURCE (into it when it is a directory) as <module>.handlers.swift.txt: the .txt \
            keeps SwiftPM from compiling it beside the build plugin's copy. `--output -` prints it. \
            Errors are printed as `path:line:col: error: message` and give exit status 1.
            """,
        options: GenerationOptions.options(output: outputOption),
        arguments: GenerationOptions.sourcesArgument
    )

    var options: GenerationOptions
    var output: String?

    init(_ arguments: CommandLineArguments) throws(UsageError) {
        options = try GenerationOptions(arguments)
        output = arguments.value(of: Self.outputOption)
    }

    func run() -> Int32 {
        do {
            let text = try options.generatedText()
            let destination = output ?? defaultDestination()
            if destination == "-" {
                print(text, terminator: "")
            } else {
                try GeneratedFile.write(text, to: destination)
                print("wrote \(destination)")
            }
            return 0
        } catch {
            Output.printErrors(error)
            return 1
        }
    }

    private func defaultDestination() -> String {
        let first = options.sources.first ?? "."
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: first, isDirectory: &isDirectory)
        let directory = exists && isDirectory.boolValue ? first : (first as NSString).deletingLastPathComponent
        let name = "\(options.module).handlers.swift.txt"
        return directory.isEmpty ? name : (directory as NSString).appendingPathComponent(name)
    }
}
