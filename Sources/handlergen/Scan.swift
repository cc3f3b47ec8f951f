import HandlerGenerator

/// `handlergen scan`: lists the handlers.
struct Scan: Subcommand {
    /// The values of `--format`.
    enum Format: String, CaseIterable {
        case json, text
    }

    static let formatOption = OptionSpec(
        name: "format", kind: .value(placeholder: "format"), help: "Output format: json or text. (default: text)")

    static let spec = CommandSpec(
        name: "scan",
        abstract: "List the @handler functions in PATHs.",
        discussion: """
            PATHs are files or directories (searched recursively for .swift files; hidden folders such as \
            .build are skipped). `--format json` prints one line in exactly this shape, keys in this order, \
            handlers and diagnostics ordered by file, then line:

            {"handlers":[{"file","line","id","type","name","kind","instance","async","throws","parameters":[{"label","name","type","optional","hasDefault"}]}],"diagnostics":[{"file","line","severity","message"}]}

            file: relative to the PATH it was found under (a file PATH: its name). line: the line of the \
            @handler attribute. id: the explicit id, else Type.Path.name (name at file scope). type: the \
            enclosing type path as written, or null at file scope. kind: static, instance or global. \
            instance: the instance: expression, or null. A parameter's type is as written with all \
            whitespace removed; optional is true for T?, T! and Optional<T>. severity: error, warning or note. \
            Former names add keys only where declared: formerIDs after a handler's parameters, formerNames \
            after a parameter's hasDefault (arrays of strings, from @handler(formerly:, renamed:)).

            `--format text` prints a line per handler, the diagnostics in the compiler's format and a count. \
            The exit status is 1 when any diagnostic is an error (the listing is printed in full either way).
            """,
        options: [formatOption],
        arguments: ArgumentSpec(
            name: "paths", help: "Swift files and directories to scan.",
            whenMissing: "give at least one file or directory to scan")
    )

    var format: Format
    var paths: [String]

    init(_ arguments: CommandLineArguments) throws(UsageError) {
        let name = arguments.value(of: Self.formatOption) ?? Format.text.rawValue
        guard let format = Format(rawValue: name) else {
            let names = Format.allCases.map(\.rawValue).joined(separator: " or ")
            throw UsageError("--format must be \(names), not '\(name)'")
        }
        self.format = format
        paths = arguments.positionals
    }

    func run() -> Int32 {
        let result = SourceSet.scanForListing(paths)
        switch format {
        case .json: print(ScanReport.json(result))
        case .text: print(ScanReport.text(result), terminator: "")
        }
        return result.hasErrors ? 1 : 0
    }
}
