import HandlerScanner

/// Why the generator refused to write a file: the diagnostics, each at the user's file and line.
public struct GeneratorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in file then line order where the input gives them.
    public var diagnostics: [ScanDiagnostic]

    /// An error reporting `diagnostics`.
    public init(diagnostics: [ScanDiagnostic]) {
        self.diagnostics = diagnostics
    }

    /// One `path:line:col: error: message` line per diagnostic, as compilers print them.
    public var description: String {
        diagnostics.map(\.compilerFormatted).joined(separator: "\n")
    }
}
