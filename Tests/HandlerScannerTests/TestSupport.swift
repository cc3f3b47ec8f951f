import HandlerScanner
import Testing

/// Scans `source` as file `T.swift`.
func scan(_ source: String, file: String = "T.swift") -> ScanResult {
    SourceScanner.scan(source: source, file: file)
}

/// The ids of the handlers found in `source`.
func ids(_ source: String) -> [String] {
    scan(source).handlers.map(\.id)
}

/// The single handler in `source`; records an issue when there is not exactly one or any diagnostic.
func onlyHandler(_ source: String, sourceLocation: SourceLocation = #_sourceLocation) -> HandlerDeclaration? {
    let result = scan(source)
    #expect(result.diagnostics == [], sourceLocation: sourceLocation)
    #expect(result.handlers.count == 1, sourceLocation: sourceLocation)
    return result.handlers.first
}

/// The single diagnostic of `source`; records an issue when there is not exactly one.
func onlyDiagnostic(_ source: String, sourceLocation: SourceLocation = #_sourceLocation) -> ScanDiagnostic? {
    let result = scan(source)
    #expect(result.diagnostics.count == 1, "\(result.diagnostics)", sourceLocation: sourceLocation)
    return result.diagnostics.first
}
