import HandlerScanner

/// Why the generator refused to write a file: the diagnostics, each at the user's file and line.
package struct GeneratorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in file then line order where the input gives them.
    package var diagnostics: [ScanDiagnostic]

    /// An error reporting `diagnostics`.
    package init(diagnostics: [ScanDiagnostic]) {
        self.diagnostics = diagnostics
    }

    /// One `path:line:col: error: message` line per diagnostic, as compilers print them.
    package var description: String {
        diagnostics.map(\.compilerFormatted).joined(separator: "\n")
    }
}
