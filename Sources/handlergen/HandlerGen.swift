import Foundation

/// A `handlergen` subcommand: what it accepts, how it reads its parsed arguments, and what it does.
protocol Subcommand {
    static var spec: CommandSpec { get }
    /// Reads the parsed arguments. - Throws: `UsageError` for a value the command cannot use.
    init(_ arguments: CommandLineArguments) throws(UsageError)
    /// Does the work; returns the exit status: 0, or 1 after printing the errors.
    func run() -> Int32
}

/// `handlergen`: the HandlerKit generator as a command line. Thin: the work is done by HandlerGenerator.
///
/// Exit status: 0 on success (and for help), 1 when the work failed (errors printed in the compiler's
/// format), 64 (EX_USAGE) when the command line is wrong.
@main
enum HandlerGen {
    static let abstract = "Find @handler functions and generate the Swift file that registers them with HandlerKit."

    static var subcommands: [any Subcommand.Type] { [Generate.self, Scan.self, Review.self, Manifest.self] }

    static func main() {
        exit(status(of: Array(CommandLine.arguments.dropFirst())))
    }

    /// Runs the command line `arguments` (without the program's name); returns the exit status.
    static func status(of arguments: [String]) -> Int32 {
        let specs = subcommands.map { $0.spec }
        guard let first = arguments.first, first != "-h", first != "--help" else {
            print(Usage.rootHelp(abstract: abstract, commands: specs), terminator: "")
            return 0
        }
        if first == "help" { return help(Array(arguments.dropFirst())) }
        guard let command = subcommands.first(where: { $0.spec.name == first }) else {
            let problem = first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown subcommand '\(first)'"
            return Usage.report(UsageError(problem), hint: Usage.rootHint(commands: specs))
        }
        return run(command, Array(arguments.dropFirst()))
    }

    /// `handlergen help [<subcommand>]`.
    static func help(_ arguments: [String]) -> Int32 {
        let specs = subcommands.map { $0.spec }
        let names = arguments.filter { $0 != "-h" && $0 != "--help" }
        guard let name = names.first else {
            print(Usage.rootHelp(abstract: abstract, commands: specs), terminator: "")
            return 0
        }
        guard names.count == 1, let spec = specs.first(where: { $0.name == name }) else {
            let problem =
                names.count == 1 ? "unknown subcommand '\(name)'" : "help takes one subcommand, not \(names.count)"
            return Usage.report(UsageError(problem), hint: Usage.rootHint(commands: specs))
        }
        print(spec.help, terminator: "")
        return 0
    }

    static func run<Command: Subcommand>(_ command: Command.Type, _ arguments: [String]) -> Int32 {
        if CommandLineArguments.asksForHelp(arguments) {
            print(Command.spec.help, terminator: "")
            return 0
        }
        do {
            return try Command(CommandLineArguments(parsing: arguments, for: Command.spec)).run()
        } catch {
            return Usage.report(error, hint: Command.spec.usageHint)
        }
    }
}
