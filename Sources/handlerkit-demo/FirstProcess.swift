import Foundation
import HandlerKit

/// The first process: creates handlers with bound values through the generated references, writes
/// them to a file as JSON (one document per line), and starts the second process on that file.
enum FirstProcess {
    static func run(file: URL) async throws {
        Say.line("Registering this module's handlers (one call): HandlerRegistry.shared.register(.handlerkit_demo)")
        try HandlerRegistry.shared.register(.handlerkit_demo)
        Say.line("Registered: \(HandlerRegistry.shared.registeredIDs.joined(separator: ", "))")

        Say.line("Creating handlers with bound values through the generated, compiler-checked references:")
        let handlers = [
            try Greeter.greetHandler(name: "Ada"),
            try Mailbox.deliverHandler(account: Account(name: "ada"), subject: "Welcome to HandlerKit"),
            try Downloads.fetchHandler(url: "https://example.com/report.pdf"),
            try Upload.progressHandler(file: "report.pdf", invalidation: Upload.cancelledHandlerID),
        ]
        for handler in handlers { Say.line("  \(handler)") }

        let document = handlers.map { $0.jsonString() }.joined(separator: "\n") + "\n"
        do {
            try Data(document.utf8).write(to: file)
        } catch {
            throw DemoFailure("cannot write \(file.path(percentEncoded: false)): \(error.localizedDescription)")
        }
        Say.line("Wrote \(handlers.count) handlers as JSON to \(file.path(percentEncoded: false)):")
        for line in document.split(separator: "\n") { Say.line("  \(line)") }

        try EventsStep.subscribeAndSave(next: file)
        try startSecondProcess(file: file)
        try SignalsStep.run()
        try await SuspendStep.run()
        try await PromiseStep.run()
        Say.line("Done: handlers made here were rebuilt and called in another process.")
    }

    /// Runs this executable again with `--replay FILE` and waits for it; its output goes straight to
    /// this process's output.
    static func startSecondProcess(file: URL) throws {
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        let process = Process()
        process.executableURL = executable
        process.arguments = [DemoMain.replayFlag, file.path(percentEncoded: false)]
        Say.line(
            "Starting a second OS process: \(executable.lastPathComponent) \(DemoMain.replayFlag) \(file.lastPathComponent)"
        )
        try process.run()
        Say.line("Second process started with pid \(process.processIdentifier); waiting for it")
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw DemoFailure(
                "the second process (pid \(process.processIdentifier)) failed with status \(process.terminationStatus)")
        }
        Say.line("Second process (pid \(process.processIdentifier)) finished successfully")
    }
}
