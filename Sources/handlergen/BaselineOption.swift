import Foundation
import HandlerGenerator
import HandlerScanner

/// `generate --baseline FILE`: the build's check of the handlers against the committed baseline.
enum BaselineOption {
    static let option = OptionSpec(
        name: "baseline", kind: .value(placeholder: "file"),
        help:
            "A committed handler baseline (handlergen manifest): report each change that would stop stored handlers from rebuilding, as its 'rules' set."
    )
    static let ifPresentOption = OptionSpec(
        name: "baseline-if-present", kind: .value(placeholder: "file"),
        help: "The same check when the file exists; nothing when it does not (what the build plugin passes).")

    /// The baseline the command line names: `--baseline`, else `--baseline-if-present` when that file exists.
    static func path(in arguments: CommandLineArguments) -> String? {
        if let path = arguments.value(of: option) { return path }
        guard let path = arguments.value(of: ifPresentOption), FileManager.default.fileExists(atPath: path) else {
            return nil
        }
        return path
    }

    /// Prints the check's warnings; throws its errors (nothing is generated then).
    static func check(_ scan: ScanResult, module: String, baseline path: String) throws(GeneratorError) {
        let diagnostics = BaselineCheck.diagnostics(scan, module: module, against: try Baseline.read(path: path))
        Output.printWarnings(ScanResult(diagnostics: diagnostics))
        let errors = diagnostics.filter { $0.severity == .error }
        if !errors.isEmpty { throw GeneratorError(diagnostics: errors) }
    }
}
