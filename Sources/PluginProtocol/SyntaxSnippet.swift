/// A piece of source code the compiler sends with a request: the text of a syntax node, including its
/// leading trivia (whitespace, comments), and where that text starts in its file.
package struct SyntaxSnippet: Codable, Equatable, Sendable {
    /// Where a snippet starts. `line` and `column` are 1-based (columns in UTF-8 bytes); `offset` is
    /// the 0-based UTF-8 offset in the file. Lexical-context snippets carry zeros: they have no place.
    package struct Location: Codable, Equatable, Sendable {
        /// `Module/File.swift`, as `#fileID` would produce.
        package var fileID: String
        /// The file's path as the compiler knows it; diagnostics must name the same path.
        package var fileName: String
        package var offset: Int
        package var line: Int
        package var column: Int

        package init(fileID: String, fileName: String, offset: Int, line: Int, column: Int) {
            self.fileID = fileID
            self.fileName = fileName
            self.offset = offset
            self.line = line
            self.column = column
        }
    }

    /// The node's syntactic category: `declaration`, `statement`, `expression`, `type`, `pattern` or
    /// `attribute`. Kept as a string so that a category added by a later compiler does not fail decoding.
    package var kind: String
    /// The node's source text, leading trivia included.
    package var source: String
    package var location: Location

    package init(kind: String, source: String, location: Location) {
        self.kind = kind
        self.source = source
        self.location = location
    }
}

/// Names the macro a request is for: the `#externalMacro(module:type:)` pair and the name used.
package struct MacroReference: Codable, Equatable, Sendable {
    /// The plugin module, `HandlerKitMacros`.
    package var moduleName: String
    /// The implementation type named in `#externalMacro`, `HandlerMacro`.
    package var typeName: String
    /// The macro's name as the compiler spelled it (may carry trailing whitespace).
    package var name: String

    package init(moduleName: String, typeName: String, name: String) {
        self.moduleName = moduleName
        self.typeName = typeName
        self.name = name
    }
}
