#if SignalsCommandLine
import Foundation
import HandlerKitSignals
import HandlerKitSignalsInspection
import HandlerKitSignalsSQLite
import TestWaiting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CommandLineTests {
    /// What the tool wrote to its terminal, and how it ended.
    struct TerminalSession {
        var status: Int32
        var screen: String
    }

    /// Runs the tool with `arguments` on a pseudo-terminal (standard input, output and error), types
    /// `answer` and a return once it asks `[y/N]`, and reads the terminal until the tool ends.
    func onTerminal(_ arguments: [String], answer: String) throws -> TerminalSession {
        let terminal = try PseudoTerminal()
        let master = terminal.master
        // Held open here too, so that reading the master side waits for the tool rather than failing
        // before it opened the terminal (Linux answers EIO while no one has the terminal open).
        let held = open(terminal.name, O_RDWR | O_NOCTTY)
        for descriptor in [master, held] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        defer {
            close(held)
            close(master)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, terminal.name, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        let path = try executable().path(percentEncoded: false)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw TerminalFailure(description: "could not start the tool: error \(spawned)") }

        var screen: [UInt8] = []
        var answered = false
        var status: Int32 = 0
        var ended = false
        let limit = TestWait.seconds(.seconds(60))
        let deadline = Date().addingTimeInterval(limit)
        while !ended {
            ended = waitpid(pid, &status, WNOHANG) == pid
            // After the tool ended, what it wrote last is read without waiting.
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            while poll(&descriptor, 1, ended ? 0 : 100) > 0 {
                var buffer = [UInt8](repeating: 0, count: 4_096)
                let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                screen += buffer[..<count]
            }
            if !answered, String(decoding: screen, as: UTF8.self).contains("[y/N] ") {
                let typed = Array((answer + "\n").utf8)
                _ = typed.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
                answered = true
            }
            if !ended && Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                throw TerminalFailure(
                    description:
                        "the tool did not end within \(limit) s (answered: \(answered)); its terminal showed: \(String(decoding: screen, as: UTF8.self))"
                )
            }
        }
        return TerminalSession(status: (status >> 8) & 0xFF, screen: String(decoding: screen, as: UTF8.self))
    }

    struct TerminalFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// A new pseudo-terminal: its master side, and the path of the terminal a program opens.
    ///
    /// `posix_openpt`, `grantpt`, `unlockpt` and `ptsname` are declared by glibc's headers only for
    /// X/Open, which Swift's Glibc module does not ask for, so they are looked up at run time there.
    struct PseudoTerminal {
        let master: Int32
        let name: String

        init() throws {
            #if canImport(Glibc)
            typealias Open = @convention(c) (Int32) -> Int32
            typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
            func function<T>(_ name: String, as type: T.Type) throws -> T {
                guard let symbol = dlsym(nil, name) else { throw TerminalFailure(description: "no \(name) in libc") }
                return unsafeBitCast(symbol, to: type)
            }
            let posix_openpt = try function("posix_openpt", as: Open.self)
            let grantpt = try function("grantpt", as: Open.self)
            let unlockpt = try function("unlockpt", as: Open.self)
            let ptsname = try function("ptsname", as: Name.self)
            #endif
            let master = posix_openpt(O_RDWR | O_NOCTTY)
            guard master >= 0 else { throw TerminalFailure(description: "no pseudo-terminal: errno \(errno)") }
            guard grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else {
                close(master)
                throw TerminalFailure(description: "the pseudo-terminal could not be set up: errno \(errno)")
            }
            self.master = master
            self.name = String(cString: name)
        }
    }

    @Test func onATerminalAnActionAsksAndOnlyYesChangesTheStore() async throws {
        let (dead, _) = try await makeStore()
        let key = "\(dead.rawValue)/1"
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let declined = try onTerminal(["requeue", path, key], answer: "n")
        #expect(declined.screen.contains("Requeue 1 dead delivery? [y/N] "), "\(declined.screen)")
        #expect(declined.status != 0)
        #expect(declined.screen.contains("nothing changed: not confirmed"), "\(declined.screen)")
        let inspector = SignalStoreInspector(store: try SQLiteSignalStore(inspecting: path))
        #expect(try await inspector.deliveries(matching: DeliveryFilter(states: [.dead])).count == 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "a declined action wrote nothing")

        let confirmed = try onTerminal(["requeue", path, key], answer: "y")
        #expect(confirmed.status == 0, "\(confirmed.screen)")
        #expect(confirmed.screen.contains("requeued 1 delivery: pending, due now"), "\(confirmed.screen)")
        let after = SignalStoreInspector(store: try SQLiteSignalStore(inspecting: path))
        let requeued = try await after.deliveries(matching: DeliveryFilter(key: DeliveryKey(key)))
        #expect(requeued.map(\.filterState) == [.pending])
        #expect(try await after.deliveries(matching: DeliveryFilter(states: [.dead])).count == 1)
    }
}
#endif
