import Foundation

/// Runs `handlergen`, passing its output and errors through.
enum ToolRun {
    /// Runs `tool` and returns its exit status.
    static func run(_ tool: URL, arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
