import Foundation

/// Writing the generated file.
package enum GeneratedFile {
    /// Writes `text` to `path` unless the file already holds exactly that text, so an unchanged
    /// generated file keeps its modification time and does not trigger recompilation.
    /// Creates missing parent directories.
    ///
    /// - Returns: `true` when the file was written.
    /// - Throws: `GeneratorError` with a `path:1:1: error:` diagnostic when the file cannot be written.
    @discardableResult
    package static func write(_ text: String, to path: String) throws(GeneratorError) -> Bool {
        let data = Data(text.utf8)
        let url = URL(fileURLWithPath: path)
        if let existing = try? Data(contentsOf: url), existing == data {
            return false
        }
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw GeneratorError(diagnostics: [
                .init(
                    file: path, line: 1, column: 1, severity: .error,
                    message: "cannot write the generated file: \(error.localizedDescription)")
            ])
        }
        return true
    }
}
