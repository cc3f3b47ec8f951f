import HandlerScanner
import Mustache

/// The templates of `Templates/`, embedded at build time by the EmbedTemplates plugin
/// (see `EmbeddedTemplates`), and their rendering.
enum Templates {
    /// The template that renders a whole file (context: `FileContext`).
    static let file = "file"
    /// The template of a handler's registry entry and shim (context: `HandlerContext`).
    static let descriptor = "descriptor"
    /// The template of a handler's compiler-checked reference (context: `HandlerContext`).
    static let reference = "reference"

    /// The parsed templates. Parsing happens once; a template that does not parse is reported by
    /// `render` (the templates ship with the generator, so that is a packaging bug, not user input).
    private static let library: Result<MustacheLibrary, GeneratorError> = {
        var library = MustacheLibrary()
        for (name, text) in EmbeddedTemplates.all.sorted(by: { $0.key < $1.key }) {
            do {
                try library.register(text, named: name)
            } catch {
                return .failure(templateError("template '\(name).mustache' does not parse: \(error)"))
            }
        }
        return .success(library)
    }()

    /// `context` rendered through the template `name`.
    static func render(_ context: Any, template name: String) throws(GeneratorError) -> String {
        let library = try library.get()
        guard let text = library.render(context, withTemplate: name) else {
            throw templateError("template '\(name).mustache' is missing")
        }
        return text
    }

    private static func templateError(_ message: String) -> GeneratorError {
        GeneratorError(diagnostics: [
            ScanDiagnostic(file: "Templates", line: 1, column: 1, severity: .error, message: message)
        ])
    }
}
