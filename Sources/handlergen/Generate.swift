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

    @OptionGroup var options: GenerationOptions

    @Option(name: .long, help: "The Swift file to write.")
    var output: String

    func run() throws {
        do {
            try GeneratedFile.write(options.generatedText(), to: output)
        } catch {
            Output.printErrors(error)
            throw ExitCode.failure
        }
    }
}
