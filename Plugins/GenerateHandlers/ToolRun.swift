import Foundation

/// Runs `handlergen`.
enum ToolRun {
    /// Runs `tool`, its output and errors passed through, and returns its exit status.
    static func run(_ tool: URL, arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Runs `tool` and returns what it printed on standard output (its errors pass through).
    static func output(_ tool: URL, arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
