import Foundation
import TestWaiting

/// Finds the executables the process-level tests run: the built plugin and the compiler.
enum ExternalTools {
    /// Names SwiftPM gives the built macro executable (Linux and macOS use the `-tool` suffix for
    /// host products).
    static let pluginNames = ["HandlerKitMacros-tool", "HandlerKitMacros"]

    /// The built `HandlerKitMacros` executable: `HANDLERKIT_MACROS_TOOL` if set, else next to the
    /// running test executable (the build folder SwiftPM put both in), searching a few levels up.
    static func pluginExecutable() -> URL? {
        let fileManager = FileManager.default
        if let path = ProcessInfo.processInfo.environment["HANDLERKIT_MACROS_TOOL"], !path.isEmpty {
            return fileManager.isExecutableFile(atPath: path) ? URL(fileURLWithPath: path) : nil
        }
        for start in testExecutableLocations() {
            var directory = start.deletingLastPathComponent()
            for _ in 0..<5 {
                for name in pluginNames {
                    let candidate = directory.appendingPathComponent(name)
                    var isDirectory: ObjCBool = false
                    if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                        !isDirectory.boolValue,
                        fileManager.isExecutableFile(atPath: candidate.path)
                    {
                        return candidate
                    }
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// Where the running test executable is.
    private static func testExecutableLocations() -> [URL] {
        var locations: [URL] = []
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            locations.append(URL(fileURLWithPath: path))
        }
        #endif
        if let url = Bundle.main.executableURL {
            locations.append(url)
        }
        let argument = CommandLine.arguments.first ?? ""
        if !argument.isEmpty {
            locations.append(
                URL(
                    fileURLWithPath: argument,
                    relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                ).standardizedFileURL)
        }
        return locations
    }

    /// The `swiftc` of the toolchain: `HANDLERKIT_SWIFTC` if set, else the first on `PATH`, else the
    /// usual install locations.
    static func swiftc() -> URL? {
        let fileManager = FileManager.default
        let environment = ProcessInfo.processInfo.environment
        var candidates: [String] = []
        if let path = environment["HANDLERKIT_SWIFTC"], !path.isEmpty {
            candidates.append(path)
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":") {
            candidates.append("\(directory)/swiftc")
        }
        candidates += ["/opt/swift/usr/bin/swiftc", "/usr/bin/swiftc"]
        return candidates.first(where: fileManager.isExecutableFile(atPath:)).map(URL.init(fileURLWithPath:))
    }
}

/// The outcome of running a child process with a time limit.
struct ProcessOutcome {
    var status: Int32
    /// `.uncaughtSignal` means it crashed (or was killed after the time limit).
    var reason: Process.TerminationReason
    var timedOut: Bool
    var standardOutput: [UInt8]
    var standardError: String

    /// Exited by itself, within the time limit, not by a signal.
    var exitedCleanly: Bool { !timedOut && reason == .exit }
}

enum ChildProcess {
    /// Runs `executable`, writes `input` to its standard input and closes it, and waits at most
    /// `timeout` (a bound against hangs, scaled by TestWait) for it to exit (killing it after that).
    /// Output goes through temporary files so a chatty child can never block on a full pipe.
    static func run(
        _ executable: URL, arguments: [String] = [], input: [UInt8] = [], closeOutputEarly: Bool = false,
        timeout: Duration = .seconds(60)
    ) async throws -> ProcessOutcome {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("PluginProtocolTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputURL = directory.appendingPathComponent("stdout")
        let errorURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let inputPipe = Pipe()
        process.standardInput = inputPipe
        let outputPipe = Pipe()
        let outputFile = try FileHandle(forWritingTo: outputURL)
        let errorFile = try FileHandle(forWritingTo: errorURL)
        if closeOutputEarly {
            process.standardOutput = outputPipe
        } else {
            process.standardOutput = outputFile
        }
        process.standardError = errorFile
        try process.run()
        if closeOutputEarly {
            // The reader goes away: the child's writes fail with EPIPE.
            try outputPipe.fileHandleForReading.close()
        }
        try? inputPipe.fileHandleForWriting.write(contentsOf: Data(input))
        try? inputPipe.fileHandleForWriting.close()

        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: TestWait.bound(timeout))
        var timedOut = false
        while process.isRunning {
            if clock.now >= deadline {
                timedOut = true
                process.terminate()
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        process.waitUntilExit()
        try? outputFile.close()
        try? errorFile.close()
        return ProcessOutcome(
            status: process.terminationStatus, reason: process.terminationReason, timedOut: timedOut,
            standardOutput: Array((try? Data(contentsOf: outputURL)) ?? Data()),
            standardError: String(decoding: (try? Data(contentsOf: errorURL)) ?? Data(), as: UTF8.self))
    }
}
