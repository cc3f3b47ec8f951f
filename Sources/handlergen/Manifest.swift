import Foundation
import HandlerGenerator

/// `handlergen manifest`: the module's handler manifest, the baseline the build checks
/// against. What `swift package --allow-writing-to-package-directory update-handler-baseline` runs.
struct Manifest: Subcommand {
    static let outputOption = OptionSpec(
        name: "output", kind: .value(placeholder: "file"),
        help: "The file to write (its 'rules' are kept when it is a baseline already). (default: standard output)")

    static let spec = CommandSpec(
        name: "manifest",
        abstract: "Write the module's handler manifest: the baseline the build checks handler changes against.",
        discussion: """
            Scans SOURCES and prints (or writes to --output) a deterministic JSON manifest of the module's \
            handlers: per handler its id, function and former ids, per parameter its name, former names, \
            type, whether it is mandatory and whether it can be bound (null when only the compiler knows). \
            Committed as \(HandlerManifest.baselineFileName) in the target's folder, it is the baseline \
            the build plugin compares the handlers with (`handlergen generate --baseline`). Its 'rules' \
            object sets each check to error, warning or ignore; rewriting an existing baseline keeps them. \
            On errors in the sources nothing is written and the exit status is 1.
            """,
        options: [GenerationOptions.moduleOption, outputOption],
        arguments: GenerationOptions.sourcesArgument
    )

    var module: String
    var output: String?
    var sources: [String]

    init(_ arguments: CommandLineArguments) throws(UsageError) {
        module = try arguments.requiredValue(of: GenerationOptions.moduleOption)
        output = arguments.value(of: Self.outputOption)
        sources = arguments.positionals
    }

    func run() -> Int32 {
        do {
            let scan = SourceSet.scanForGeneration(sources)
            Output.printWarnings(scan)
            let errors = scan.diagnostics.filter { $0.severity == .error }
            if !errors.isEmpty { throw GeneratorError(diagnostics: errors) }
            guard let output, output != "-" else {
                print(HandlerManifest(module: module, scan: scan).json, terminator: "")
                return 0
            }
            var rules = HandlerManifest.defaultRules
            if FileManager.default.fileExists(atPath: output) { rules = try Baseline.read(path: output).manifest.rules }
            try GeneratedFile.write(HandlerManifest(module: module, scan: scan, rules: rules).json, to: output)
            return 0
        } catch {
            Output.printErrors(error)
            return 1
        }
    }
}
