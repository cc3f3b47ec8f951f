/// A mistake in how `handlergen` was called. Printed as `handlergen: error: <message>` with a usage
/// line; the exit status is 64 (EX_USAGE).
struct UsageError: Error {
    let message: String

    init(_ message: String) { self.message = message }
}

/// An option of a subcommand, always long: `--name value` or `--name=value`; a flag is `--name` or
/// its inversion `--no-name`.
struct OptionSpec {
    enum Kind {
        /// Takes a value, shown as `<placeholder>` in help.
        case value(placeholder: String)
        /// Takes no value: `--name` turns it on, `--no-name` off; `default` when neither is given.
        case flag(default: Bool)
    }

    let name: String
    let kind: Kind
    /// Whether the subcommand refuses to run without it.
    var isRequired = false
    /// Whether it may be given more than once, each value kept (otherwise the last one counts).
    var isRepeatable = false
    let help: String
    /// A longer explanation, printed under `help` in the subcommand's help.
    var discussion: String?

    /// How the option is written with its value, e.g. `--module <module>` or `--no-source-locations`.
    var spelled: String {
        switch kind {
        case .value(let placeholder): "--\(name) <\(placeholder)>"
        case .flag(let isOn): isOn ? "--no-\(name)" : "--\(name)"
        }
    }
}

/// The positional arguments of a subcommand: one or more, e.g. `<sources> ...`.
struct ArgumentSpec {
    let name: String
    let help: String
    /// What the usage error says when none is given.
    let whenMissing: String
}

/// A subcommand's arguments parsed against its options: the values of each option, the flags given
/// and the positional arguments, in order.
///
/// Options and positional arguments may be mixed; `--` ends the options (everything after it is
/// positional), and so does nothing else. A lone `-` is positional (or an option's value).
struct CommandLineArguments {
    private var values: [String: [String]] = [:]
    private var flags: [String: Bool] = [:]
    /// The positional arguments: at least one (parsing refuses none).
    private(set) var positionals: [String] = []

    /// Whether `arguments` ask for help (`-h` or `--help` before any `--`), which outranks any error.
    static func asksForHelp(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains { $0 == "-h" || $0 == "--help" }
    }

    /// Parses `arguments` (those after the subcommand's name) against `command`'s options.
    /// - Throws: `UsageError` for an unknown option, an option without its value, a flag given a
    ///   value, a missing required option, or no positional argument.
    init(parsing arguments: [String], for command: CommandSpec) throws(UsageError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                positionals += remaining
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                positionals.append(argument)
                continue
            }
            guard argument.hasPrefix("--") else { throw UsageError("unknown option '\(argument)'") }
            let (name, inlineValue) = Self.split(argument)
            guard let (option, isOn) = Self.option(named: name, in: command.options) else {
                throw UsageError("unknown option '--\(name)'")
            }
            switch option.kind {
            case .flag:
                if let inlineValue { throw UsageError("--\(name) takes no value, not '\(inlineValue)'") }
                flags[option.name] = isOn
            case .value:
                if let inlineValue, !inlineValue.isEmpty {
                    values[option.name, default: []].append(inlineValue)
                } else if inlineValue == nil, let next = remaining.first, next == "-" || !next.hasPrefix("-") {
                    values[option.name, default: []].append(next)
                    remaining.removeFirst()
                } else {
                    throw UsageError("missing value for \(option.spelled)")
                }
            }
        }
        for option in command.options where option.isRequired && values[option.name] == nil {
            throw UsageError("missing required option \(option.spelled)")
        }
        if positionals.isEmpty {
            throw UsageError("missing <\(command.arguments.name)>: \(command.arguments.whenMissing)")
        }
    }

    /// `--name=value` as (`name`, `value`); `--name` as (`name`, nil).
    private static func split(_ argument: String) -> (name: String, value: String?) {
        let body = argument.dropFirst(2)
        guard let equals = body.firstIndex(of: "=") else { return (String(body), nil) }
        return (String(body[..<equals]), String(body[body.index(after: equals)...]))
    }

    /// The option `--name` spells, and for a flag whether it turns it on (`--no-name` turns it off).
    private static func option(named name: String, in options: [OptionSpec]) -> (OptionSpec, isOn: Bool)? {
        for option in options {
            if option.name == name { return (option, true) }
            if case .flag = option.kind, name == "no-" + option.name { return (option, false) }
        }
        return nil
    }

    /// The option's value (the last one given), or nil when it was not given.
    func value(of option: OptionSpec) -> String? {
        values[option.name]?.last
    }

    /// The value of a required option (parsing has made sure it was given).
    func requiredValue(of option: OptionSpec) throws(UsageError) -> String {
        guard let value = value(of: option) else { throw UsageError("missing required option \(option.spelled)") }
        return value
    }

    /// Every value of a repeatable option, in the order given.
    func allValues(of option: OptionSpec) -> [String] {
        values[option.name] ?? []
    }

    /// Whether a flag is on: as last given, else its default.
    func isOn(_ option: OptionSpec) -> Bool {
        if let given = flags[option.name] { return given }
        if case .flag(let isOn) = option.kind { return isOn }
        return false
    }
}
