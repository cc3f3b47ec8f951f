/// A subcommand as its help and usage errors describe it; its options are also what its arguments
/// are parsed against.
struct CommandSpec {
    let name: String
    let abstract: String
    /// Paragraphs separated by blank lines; each is wrapped to the terminal width.
    let discussion: String
    let options: [OptionSpec]
    let arguments: ArgumentSpec

    /// `handlergen <name> --help`: overview, discussion, usage, arguments and options.
    var help: String {
        var lines = Usage.paragraph("OVERVIEW: " + abstract) + [""]
        lines += Usage.paragraphs(discussion) + [""]
        let synopsis = options.map { option in
            let spelled = option.isRepeatable ? option.spelled + " ..." : option.spelled
            return option.isRequired ? spelled : "[\(spelled)]"
        }
        let lead = "USAGE: handlergen \(name) "
        lines += Usage.paragraph(synopsis + ["<\(arguments.name)> ..."], lead: lead, indent: lead.count) + [""]
        lines += ["ARGUMENTS:"] + Usage.entry("<\(arguments.name)>", arguments.help) + [""]
        lines.append("OPTIONS:")
        for option in options {
            let name =
                switch option.kind {
                case .value: option.spelled
                case .flag: "--\(option.name)/--no-\(option.name)"
                }
            lines += Usage.entry(name, option.help)
            if let discussion = option.discussion {
                lines += Usage.paragraph(discussion, lead: Usage.column, indent: Usage.column.count)
            }
        }
        lines += Usage.entry("-h, --help", "Show help information.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The line under a usage error: required options spelled out, the others summed up.
    var usageHint: String {
        let required = options.filter(\.isRequired).map(\.spelled)
        let others = options.contains { !$0.isRequired } ? ["[<options>]"] : []
        let words = ["usage: handlergen", name] + required + others + ["<\(arguments.name)> ..."]
        return words.joined(separator: " ") + " (see 'handlergen \(name) --help')"
    }
}

/// Help texts laid out for an 80-column terminal, and usage errors reported.
enum Usage {
    static let width = 80
    /// Where an option's help starts, after its name.
    static let column = String(repeating: " ", count: 26)

    /// `handlergen --help`.
    static func rootHelp(abstract: String, commands: [CommandSpec]) -> String {
        var lines = paragraph("OVERVIEW: " + abstract) + [""]
        lines += ["USAGE: handlergen <subcommand>", "", "OPTIONS:"] + entry("-h, --help", "Show help information.")
        lines += ["", "SUBCOMMANDS:"] + commands.flatMap { entry($0.name, $0.abstract) }
        lines += ["", "  See 'handlergen help <subcommand>' for detailed help."]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The line under a usage error that belongs to no subcommand.
    static func rootHint(commands: [CommandSpec]) -> String {
        "usage: handlergen \(commands.map(\.name).joined(separator: "|")) ... (see 'handlergen --help')"
    }

    /// Prints `handlergen: error: <message>` and `hint` to standard error; returns EX_USAGE (64).
    static func report(_ error: UsageError, hint: String) -> Int32 {
        Output.standardError("handlergen: error: \(error.message)")
        Output.standardError(hint)
        return 64
    }

    /// `name` indented by two, then `help` from the option column on (on the next line when `name`
    /// reaches the column).
    static func entry(_ name: String, _ help: String) -> [String] {
        let lead = "  " + name
        guard lead.count < column.count - 1 else { return [lead] + paragraph(help, lead: column, indent: column.count) }
        let padded = lead + String(repeating: " ", count: column.count - lead.count)
        return paragraph(help, lead: padded, indent: column.count)
    }

    /// Each line of `text` wrapped; blank lines kept.
    static func paragraphs(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line in
            line.isEmpty ? [""] : paragraph(String(line))
        }
    }

    static func paragraph(_ text: String, lead: String = "", indent: Int = 0) -> [String] {
        paragraph(text.split(separator: " ").map(String.init), lead: lead, indent: indent)
    }

    /// `words` after `lead`, in lines of at most `width` characters; lines after the first are
    /// indented by `indent`. A word longer than a line gets a line of its own.
    static func paragraph(_ words: [String], lead: String, indent: Int) -> [String] {
        var lines: [String] = []
        var line = lead
        var lineHasWords = false
        for word in words {
            if lineHasWords && line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent) + word
            } else {
                line += lineHasWords ? " " + word : word
            }
            lineHasWords = true
        }
        lines.append(line)
        return lines
    }
}
