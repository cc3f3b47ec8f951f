#if os(Linux)
import Foundation
import Glibc

/// An executable (this one by default) started with `arguments` through `posix_spawn`, its standard output read
/// through a pipe, and its exit waited for with `waitpid`: no run loop or helper thread between the
/// spawn, the child's exit and the moment this process sees it (Foundation's `Process` polls for the
/// exit on Linux, which would add its polling interval to a process's measured lifetime).
struct SpawnedProcess {
    /// When `posix_spawn` was called (`CLOCK_MONOTONIC`, nanoseconds, comparable with the child's clock).
    let spawnedAt: UInt64
    /// When `waitpid` returned the child's exit.
    let exitedAt: UInt64
    /// Everything the child wrote to its standard output.
    let output: String

    /// Runs `executable` (this one when `nil`) with `arguments` to its end.
    static func run(_ arguments: [String], executable: String? = nil) throws -> SpawnedProcess {
        let executable = executable ?? Bundle.main.executableURL?.path ?? CommandLine.arguments[0]
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw BenchmarkFailure("pipe failed: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        posix_spawn_file_actions_addclose(&actions, ends[1])

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawnedAt = SignalsBenchmark.monotonicNanoseconds()
        let status = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(ends[1])
        guard status == 0 else {
            close(ends[0])
            throw BenchmarkFailure("posix_spawn of \(executable) failed: errno \(status)")
        }
        // The child's output is small (a few lines, written at its end): read it whole, then wait.
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(ends[0], &chunk, chunk.count)
            if count > 0 {
                output += chunk[0..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(ends[0])
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) < 0 && errno == EINTR {}
        let exitedAt = SignalsBenchmark.monotonicNanoseconds()
        let text = String(decoding: output, as: UTF8.self)
        // WIFEXITED and WEXITSTATUS, spelled out (the C macros are not imported).
        guard exitStatus & 0x7f == 0, (exitStatus >> 8) & 0xff == 0 else {
            throw BenchmarkFailure("\(arguments.joined(separator: " ")) ended with status \(exitStatus): \(text)")
        }
        return SpawnedProcess(spawnedAt: spawnedAt, exitedAt: exitedAt, output: text)
    }

    /// The number the child printed as `<name> <number>` on a line of its own.
    func value(_ name: String) throws -> UInt64 {
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, fields[0] == name, let value = UInt64(fields[1]) { return value }
        }
        throw BenchmarkFailure("the child printed no `\(name)` line: \(output)")
    }
}
#endif
