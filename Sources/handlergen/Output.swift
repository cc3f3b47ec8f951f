import Foundation
import HandlerGenerator
import HandlerScanner

/// Printing diagnostics to standard error in the compiler's format.
enum Output {
    static func printWarnings(_ scan: ScanResult) {
        for diagnostic in scan.diagnostics where diagnostic.severity != .error {
            standardError(diagnostic.compilerFormatted)
        }
    }

    static func printErrors(_ error: any Error) {
        if let error = error as? GeneratorError {
            for diagnostic in error.diagnostics { standardError(diagnostic.compilerFormatted) }
        } else {
            standardError("handlergen: error: \(error)")
        }
    }

    static func standardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
