import HandlerScanner

/// How the generated code is laid out for a reviewer: one statement per line, lines of at most
/// ``width`` columns where the text is the generator's own, and every piece of the user's text (a
/// type, a default value, the `instance:` expression) on a line that `#sourceLocation` maps to the
/// user's line holding it.
extension HandlerContext {
    /// The project's line width.
    static let width = 120

    /// `items`, one per line, each mapped to its parameter's line in the user's file: a
    /// `#sourceLocation` directive precedes an item unless it sits on the line after the previous
    /// item's (a default value spanning lines counts its lines), so parameters the user wrote on one
    /// line each get a directive.
    static func mappedLines<Item>(
        _ parameters: [HandlerDeclaration.Parameter], sourceLocations: Bool, defaultsSpanLines: Bool,
        _ makeItem: (HandlerDeclaration.Parameter) -> Item
    ) -> [MappedLine<Item>] {
        var next: Int?  // the user's line the next generated line maps to without a directive
        return parameters.map { parameter in
            let remaps = sourceLocations && next != parameter.line
            var end = parameter.line
            if defaultsSpanLines, parameter.hasDefault, let value = parameter.defaultValue {
                end += value.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
            }
            next = end + 1
            return MappedLine(remaps: remaps, line: parameter.line, item: makeItem(parameter))
        }
    }

    /// The rows of a signature's parameter list: the parameters the user wrote on one line share a row
    /// (a signature can hold no directive, so a row is what one user line maps to), blank lines where
    /// the user's rows are further apart. With `endsWithComma` every row ends with a comma; otherwise
    /// all but the last.
    ///
    /// A signature that no directive maps (`mapped` is `false`) keeps no rows: a row longer than a
    /// line at `indentation` columns is split into one parameter per line.
    static func signatureRows(
        _ parameters: [HandlerDeclaration.Parameter], endsWithComma: Bool, mapped: Bool, indentation: Int,
        _ declaration: (HandlerDeclaration.Parameter) -> String
    ) -> [SignatureRow] {
        var groups: [(blankLines: Int, members: [String])] = []
        var endLine = 0  // the user's line where the previous row's text ends
        for parameter in parameters {
            let row = groups.last.map { $0.members.joined(separator: ", ") + ", " + declaration(parameter) + "," }
            let fits = row.map { indentation + $0.count <= width } ?? true
            if !groups.isEmpty, parameter.line <= endLine, mapped || fits {
                groups[groups.count - 1].members.append(declaration(parameter))
            } else {
                let blank = groups.isEmpty ? 0 : max(parameter.line - endLine - 1, 0)
                groups.append((blank, [declaration(parameter)]))
                endLine = parameter.line
            }
        }
        return groups.enumerated().map { index, group in
            let isLast = index == groups.count - 1
            return SignatureRow(
                blankLines: String(repeating: "\n", count: group.blankLines),
                text: group.members.joined(separator: ", ") + (isLast && !endsWithComma ? "" : ","))
        }
    }

    /// A call written after `indentation` in a template, in a member's scope when `isMember`: on one
    /// line when it fits in ``width``, else one argument per line (the arguments hold no text of the
    /// user's, only names of locals).
    static func call(_ opening: String, arguments: [String], indentation: String, isMember: Bool) -> String {
        let oneLine = opening + "(" + arguments.joined(separator: ", ") + ")"
        let column = indentation.count + (isMember ? 4 : 0)
        guard column + oneLine.count > width, !arguments.isEmpty else { return oneLine }
        return opening + "(\n" + arguments.map { indentation + "    " + $0 }.joined(separator: ",\n") + "\n"
            + indentation + ")"
    }
}

/// An item written on a line of its own, and the user's line it maps to.
struct MappedLine<Item> {
    /// Whether a `#sourceLocation(file:line:)` directive with ``line`` precedes it.
    let remaps: Bool
    let line: Int
    let item: Item
}

/// A row of a signature's parameters: the blank lines before it (`\n` each) and its text.
struct SignatureRow {
    let blankLines: String
    let text: String
}
