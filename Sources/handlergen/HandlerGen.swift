import ArgumentParser

/// `handlergen`: the HandlerKit generator as a command line. Thin: the work is done by HandlerGenerator.
@main
struct HandlerGen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handlergen",
        abstract: "Find @handler functions and generate the Swift file that registers them with HandlerKit.",
        subcommands: [Generate.self, Scan.self, Review.self]
    )
}
