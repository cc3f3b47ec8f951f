import Foundation

/// Runs `handlergen`, passing its output and errors through.
enum ToolRun {
    static func run(_ tool: URL, arguments: [String], describing target: String) throws {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ReviewError.toolFailed(target: target, status: process.terminationStatus)
        }
    }
}
