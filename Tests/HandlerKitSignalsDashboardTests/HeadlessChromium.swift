// The dashboard exists with its trait only (`swift test --traits SignalsDashboard`, or
// `--enable-all-traits` as Scripts/test.sh runs).
#if SignalsDashboard
import Foundation
import TestWaiting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Headless Chromium driven through the Chrome DevTools Protocol over a pipe
/// (`--remote-debugging-pipe`): Chromium reads commands from its descriptor 3 and writes answers
/// and events to its descriptor 4, each a JSON object ended by a NUL byte. No WebSocket, no package.
///
/// Calls block until Chromium answers (at most ``timeout``); one test drives one browser.
final class HeadlessChromium {
    /// How long one command, or a page's load, may take before the test fails: a minute, scaled by
    /// `HANDLERKIT_TEST_TIME_SCALE` (TestWait).
    static let timeout: Double = TestWait.seconds(.seconds(60))

    /// The browser's path: `HANDLERKIT_CHROMIUM` (none when that is not an executable), or `chromium`
    /// / `chromium-browser` / `google-chrome` on the `PATH`.
    static let path: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["HANDLERKIT_CHROMIUM"], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
                return "\(folder)/\(name)"
            }
        }
        return nil
    }()

    /// Whether the browser tests run: Chromium is there, or CI expects it (and then they fail
    /// without it, saying how to install it).
    static let isExpected = path != nil || ProcessInfo.processInfo.environment["CI"] != nil
    static let howToRun =
        "Dashboard browser tests not run: Chromium is not installed. Install it with "
        + "`bash Scripts/install-dependencies.sh` (Debian's package chromium), or set HANDLERKIT_CHROMIUM to a "
        + "Chromium or Chrome binary."

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let processID: pid_t
    private let commands: Int32
    private let answers: Int32
    private var received: [UInt8] = []
    private var events: [[String: Any]] = []
    private var nextID = 0
    private var session = ""
    private let profile: String

    /// Starts Chromium with a fresh profile in `folder`, its error output in `folder/chromium.log`,
    /// and attaches to its page, sized 1280 × 860.
    init(folder: String) throws {
        guard let path = Self.path else { throw Failure(description: Self.howToRun) }
        profile = folder + "/chromium-profile"
        var toBrowser: [Int32] = [0, 0]
        var fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else {
            throw Failure(description: "pipe failed: errno \(errno)")
        }
        // Only the descriptors 3 and 4 made from them reach the browser.
        for descriptor in toBrowser + fromBrowser { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, folder + "/chromium.log", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        let arguments = [
            path, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio", "--user-data-dir=\(profile)",
            "--window-size=1280,860", "about:blank",
        ]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(toBrowser[0])
        close(fromBrowser[1])
        guard spawned == 0 else {
            close(toBrowser[1])
            close(fromBrowser[0])
            throw Failure(description: "could not start \(path): error \(spawned)")
        }
        processID = pid
        commands = toBrowser[1]
        answers = fromBrowser[0]
        signal(SIGPIPE, SIG_IGN)

        let targets = try send("Target.getTargets", [:], inSession: false)
        guard let infos = targets["targetInfos"] as? [[String: Any]],
            let page = infos.first(where: { $0["type"] as? String == "page" })?["targetId"] as? String
        else { throw Failure(description: "Chromium has no page: \(targets)") }
        let attached = try send("Target.attachToTarget", ["targetId": page, "flatten": true], inSession: false)
        guard let session = attached["sessionId"] as? String else {
            throw Failure(description: "could not attach to the page: \(attached)")
        }
        self.session = session
        _ = try send("Page.enable")
        _ = try send(
            "Emulation.setDeviceMetricsOverride",
            ["width": 1280, "height": 860, "deviceScaleFactor": 1, "mobile": false])
    }

    /// Ends the browser.
    func quit() {
        _ = try? send("Browser.close", [:], inSession: false)
        close(commands)
        close(answers)
        var status: Int32 = 0
        for _ in 0..<50 {
            if waitpid(processID, &status, WNOHANG) == processID { return }
            usleep(100_000)
        }
        kill(processID, SIGKILL)
        waitpid(processID, &status, 0)
    }

    /// Opens `url` and returns once its page has loaded.
    func open(_ url: String) throws {
        events.removeAll()
        let answer = try send("Page.navigate", ["url": url])
        if let error = answer["errorText"] as? String { throw Failure(description: "could not open \(url): \(error)") }
        try waitForLoad()
    }

    /// Runs `script` in the page and returns its value (JSON values only).
    @discardableResult
    func evaluate(_ script: String) throws -> Any? {
        let answer = try send("Runtime.evaluate", ["expression": script, "returnByValue": true])
        if let exception = answer["exceptionDetails"] as? [String: Any] {
            throw Failure(description: "the page's script failed: \(script): \(exception)")
        }
        return (answer["result"] as? [String: Any])?["value"]
    }

    /// The text of the element `selector` selects, `nil` when there is none.
    func text(_ selector: String) throws -> String? {
        try evaluate("document.querySelector(\(Self.quoted(selector)))?.textContent ?? null") as? String
    }

    /// Runs `script`, which leaves the page (a click on a link or a form's button), and returns once
    /// the next page has loaded.
    func leave(by script: String) throws {
        events.removeAll()
        try evaluate(script)
        try waitForLoad()
    }

    /// The page as PNG, written to `file`.
    func screenshot(to file: String) throws {
        let answer = try send("Page.captureScreenshot", ["format": "png"])
        guard let encoded = answer["data"] as? String, let data = Data(base64Encoded: encoded) else {
            throw Failure(description: "no screenshot: \(answer)")
        }
        try data.write(to: URL(fileURLWithPath: file))
    }

    /// `text` as a JavaScript string literal.
    static func quoted(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])) ?? Data()
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }

    // MARK: The protocol

    private func waitForLoad() throws {
        let deadline = Date().addingTimeInterval(Self.timeout)
        while !events.contains(where: { $0["method"] as? String == "Page.loadEventFired" }) {
            guard let message = try readMessage(until: deadline) else {
                let seen = events.compactMap { $0["method"] as? String }
                throw Failure(
                    description: "the page did not load within \(Self.timeout) s; the page's events meanwhile: \(seen)")
            }
            if message["id"] == nil { events.append(message) }
        }
    }

    private func send(
        _ method: String, _ parameters: [String: Any] = [:], inSession: Bool = true
    ) throws
        -> [String: Any]
    {
        nextID += 1
        let id = nextID
        var message: [String: Any] = ["id": id, "method": method, "params": parameters]
        if inSession { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            guard count > 0 else { throw Failure(description: "Chromium stopped reading (errno \(errno))") }
            written += count
        }
        let deadline = Date().addingTimeInterval(Self.timeout)
        while true {
            guard let answer = try readMessage(until: deadline) else {
                throw Failure(description: "Chromium did not answer \(method) within \(Self.timeout) s")
            }
            guard answer["id"] as? Int == id else {
                if answer["id"] == nil { events.append(answer) }
                continue
            }
            if let error = answer["error"] { throw Failure(description: "\(method) failed: \(error)") }
            return answer["result"] as? [String: Any] ?? [:]
        }
    }

    /// The next message, or `nil` when none came by `deadline`.
    private func readMessage(until deadline: Date) throws -> [String: Any]? {
        while true {
            if let end = received.firstIndex(of: 0) {
                let message = Array(received[..<end])
                received.removeSubrange(...end)
                guard let object = try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any] else {
                    throw Failure(description: "Chromium sent something else than an object")
                }
                return object
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var descriptor = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(min(left, 1) * 1_000)) >= 0 || errno == EINTR else {
                throw Failure(description: "poll failed: errno \(errno)")
            }
            guard descriptor.revents != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let count = buffer.withUnsafeMutableBytes { read(answers, $0.baseAddress, $0.count) }
            guard count > 0 else { throw Failure(description: "Chromium closed its pipe (see chromium.log)") }
            received += buffer[..<count]
        }
    }
}
#endif
