/// A template that does not parse: what is wrong, and where (1-based line and column, in bytes).
package struct MustacheError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The template's name, as given to `MustacheTemplate(parsing:named:)`.
    package var template: String
    package var line: Int
    package var column: Int
    package var message: String

    package init(template: String, line: Int, column: Int, message: String) {
        self.template = template
        self.line = line
        self.column = column
        self.message = message
    }

    package var description: String { "\(template):\(line):\(column): \(message)" }
}
