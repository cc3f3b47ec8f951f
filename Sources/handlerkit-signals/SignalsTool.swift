// Compiled with the package trait `SignalsCommandLine` only (its dependency swift-argument-parser is
// fetched and built only then); without it, the tool says how to build it.
#if SignalsCommandLine
import ArgumentParser

/// `handlerkit-signals`: looks inside a signal store (an SQLite file or a PostgreSQL URL) and repairs
/// it. Reading commands open the store read-only; the actions ask for confirmation.
@main
struct SignalsTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handlerkit-signals",
        abstract: "Look inside a HandlerKit signal store, and requeue or discard what is stuck.",
        discussion: """
            STORE is the path of an SQLite store's database file, or a postgres:// URL (with ?schema=NAME). \
            status, consumers, deliveries, show, blocked-keys and completions only read: the store is opened read-only. \
            requeue, discard and purge-completions change it: each says what it will change and asks for \
            confirmation on a terminal (--yes skips the question; without a terminal it is required).
            """,
        subcommands: [
            StatusCommand.self, ConsumersCommand.self, DeliveriesCommand.self, ShowCommand.self,
            BlockedKeysCommand.self, CompletionsCommand.self, RequeueCommand.self, DiscardCommand.self,
            PurgeCompletionsCommand.self,
        ])
}
#else
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Built without the package trait `SignalsCommandLine`: says how to build the tool.
@main
enum SignalsTool {
    static func main() {
        print(
            "handlerkit-signals was built without HandlerKit's package trait SignalsCommandLine: build it with "
                + "`swift build --traits SignalsCommandLine --product handlerkit-signals`")
        exit(64)
    }
}
#endif
