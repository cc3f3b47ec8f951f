import HandlerGenerator

/// `handlergen generate`: what the build plugin runs.
struct Generate: Subcommand {
    static let outputOption = OptionSpec(
        name: "output", kind: .value(placeholder: "file"), isRequired: true, help: "The Swift file to write.")

    static let spec = CommandSpec(
        name: "generate",
        abstract: "Generate the module's handler file (what the HandlerKit build plugin runs).",
        discussion: """
            Scans SOURCES (files, or directories searched recursively for .swift files) and writes one \
            Swift file: the module's HandlerTable (register it with \
            `try HandlerRegistry.shared.register(.<module>)`) and, per handler, its shim, its \
            compiler-checked reference `<name>Handler(…)` and its typed call `call<Name>Handler(_:…)`. \
            The file is written only when its content changes. On errors \
            nothing is written, each error is printed to stderr as `path:line:col: error: message`, and \
            the exit status is 1.
            """,
        options: GenerationOptions.options(output: outputOption) + [
            BaselineOption.option, BaselineOption.ifPresentOption,
        ],
        arguments: GenerationOptions.sourcesArgument
    )

    var options: GenerationOptions
    var output: String
    var baseline: String?

    init(_ arguments: CommandLineArguments) throws(UsageError) {
        options = try GenerationOptions(arguments)
        output = try arguments.requiredValue(of: Self.outputOption)
        baseline = BaselineOption.path(in: arguments)
    }

    func run() -> Int32 {
        do {
            try GeneratedFile.write(options.generatedText(checkingAgainst: baseline), to: output)
            return 0
        } catch {
            Output.printErrors(error)
            return 1
        }
    }
}
