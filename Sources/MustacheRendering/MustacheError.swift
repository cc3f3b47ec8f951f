/// A template that does not parse: what is wrong, and where (1-based line and column, in bytes).
public struct MustacheError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The template's name, as given to `MustacheTemplate(parsing:named:)`.
    public var template: String
    public var line: Int
    public var column: Int
    public var message: String

    public init(template: String, line: Int, column: Int, message: String) {
        self.template = template
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "\(template):\(line):\(column): \(message)" }
}
