import Foundation

/// Printing the demo's steps, each line saying which process prints it.
enum Say {
    /// `first process`, `second process`, or the process of a signals step.
    static let role =
        SignalsStep.child(CommandLine.arguments)?.0.role
        ?? SuspendStep.child(CommandLine.arguments).map { _ in SuspendStep.role }
        ?? PromiseStep.role(CommandLine.arguments)
        ?? (CommandLine.arguments.contains(DemoMain.replayFlag) ? "second process" : "first process")

    /// This process's id.
    static let pid = ProcessInfo.processInfo.processIdentifier

    /// Writes `text` as one line, prefixed with the process, straight to standard output (unbuffered,
    /// so the two processes' lines appear in the order they happen).
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data("[\(role), pid \(pid)] \(text)\n".utf8))
    }

    /// Writes `text` as one line to standard error.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data("[\(role), pid \(pid)] error: \(text)\n".utf8))
    }
}
