import HandlerScanner

/// Scanning the paths the command line names.
package enum SourceSet {
    /// Scans `paths` (files, or directories searched recursively for `.swift` files) as one module,
    /// with each result's `file` relative to the path it was found under (a file given directly is
    /// named by its last path component), as `handlergen scan` prints them.
    ///
    /// Duplicate ids are checked across all paths. Unreadable, binary and invalid UTF-8 files give
    /// diagnostics.
    package static func scanForListing(_ paths: [String]) -> ScanResult {
        var result = ScanResult()
        for path in paths {
            let part = SourceScanner.scan(paths: [path], relativeTo: path)
            result.handlers += part.handlers
            result.diagnostics += part.diagnostics
        }
        if paths.count > 1 {
            // Duplicates inside one path are already reported by the scanner.
            let reported = Set(result.diagnostics.map { "\($0.file):\($0.line):\($0.column)" })
            for diagnostic in HandlerGenerator.duplicateIDs(in: result.handlers)
            where !reported.contains("\(diagnostic.file):\(diagnostic.line):\(diagnostic.column)") {
                result.diagnostics.append(diagnostic)
            }
        }
        return result
    }

    /// Scans `paths` as one module for generation, with `file` as the paths spell them (so
    /// `#sourceLocation` and diagnostics name files the compiler and the user can open).
    package static func scanForGeneration(_ paths: [String]) -> ScanResult {
        SourceScanner.scan(paths: paths, relativeTo: nil)
    }
}
