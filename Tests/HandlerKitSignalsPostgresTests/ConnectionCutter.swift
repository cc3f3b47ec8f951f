// Compiled with the package trait `PostgreSQL` only (Scripts/test.sh enables it).
#if PostgreSQL && canImport(Glibc)
import Foundation
import Glibc
import HandlerKit
import SignalsTestSupport

/// A TCP proxy on 127.0.0.1 in front of the test server that forwards the PostgreSQL protocol both
/// ways, and once armed cuts the first connection on which the client executes a chosen prepared
/// statement (its `Bind` message names it):
///
/// - `.afterAnswer`: the statement reaches the server, which runs (and commits) it; the proxy keeps
///   the answer from the client until the server is ready for the next query, then closes the
///   connection. The client has lost its connection mid-statement, after the server applied it.
/// - `.beforeServer`: the statement never reaches the server; the connection is closed at once.
///
/// Armed with `arm(transactionRunning:)` instead, it cuts the first connection whose transaction runs
/// a statement whose text holds a chosen string, once the server has committed that transaction:
/// the `COMMIT` reaches the server, its answer never reaches the client.
final class ConnectionCutter: @unchecked Sendable {
    enum Cut: Sendable {
        case afterAnswer
        case beforeServer
    }

    /// The port the proxy listens on.
    private(set) var port = 0
    private let serverPort: Int
    private let listener: Int32
    /// The statement whose connection is cut next, and how many connections were cut.
    private let state = Locked<(armed: (statement: String, cut: Cut)?, transaction: String?, cuts: Int)>((nil, nil, 0))

    /// A proxy to the server at 127.0.0.1:`serverPort`.
    init(serverPort: Int) throws {
        self.serverPort = serverPort
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw Probe.Failure(description: "socket: errno \(errno)") }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw Probe.Failure(description: "bind/listen on 127.0.0.1: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptConnections() }.start()
    }

    /// Cuts the next connection that executes the prepared statement named `statement`, once.
    func arm(statement: String, cut: Cut) {
        state.withLock { $0.armed = (statement, cut) }
    }

    /// Cuts the next connection whose transaction runs a statement whose text contains `text`, once,
    /// after the server committed the transaction (the answer of its `COMMIT` is withheld).
    func arm(transactionRunning text: String) {
        state.withLock { $0.transaction = text }
    }

    /// How many connections were cut.
    var cuts: Int { state.withLock { $0.cuts } }

    /// Stops accepting connections (those open go on until their ends close them).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptConnections() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: serverPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if server < 0 || connected != 0 {
                close(client)
                if server >= 0 { close(server) }
                continue
            }
            let link = Link(client: client, server: server)
            Thread { [self] in forwardRequests(link) }.start()
            Thread { [self] in forwardAnswers(link) }.start()
        }
    }

    /// One proxied connection. `cutting` is set before the chosen statement is forwarded, so no
    /// byte of its answer reaches the client.
    private final class Link: Sendable {
        let client: Int32
        let server: Int32
        /// The cut to make, whether it is made at the next `COMMIT`, and how many of the two pumps
        /// have ended.
        private let state = Locked<(cut: Cut?, atCommit: Bool, ended: Int)>((nil, false, 0))

        init(client: Int32, server: Int32) {
            self.client = client
            self.server = server
        }

        var cutting: Cut? {
            get { state.withLock { $0.cut } }
            set { state.withLock { $0.cut = newValue } }
        }

        var cuttingAtCommit: Bool {
            get { state.withLock { $0.atCommit } }
            set { state.withLock { $0.atCommit = newValue } }
        }

        /// Ends both sides; the second pump to stop closes the descriptors.
        func end() {
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
            let last = state.withLock { state -> Bool in
                state.ended += 1
                return state.ended == 2
            }
            if last {
                close(client)
                close(server)
            }
        }
    }

    /// Client to server: the startup message, then typed frames (type byte, length including itself).
    private func forwardRequests(_ link: Link) {
        defer { link.end() }
        var pending: [UInt8] = []
        var startup = true
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(link.client, &buffer, buffer.count)
            if count <= 0 { return }
            pending += buffer[0..<count]
            // Complete frames are checked for the armed statement's Bind before any is forwarded.
            var frames = 0
            while true {
                let header = startup ? 4 : 5
                guard pending.count - frames >= header else { break }
                let lengthAt = frames + (startup ? 0 : 1)
                let length = pending[lengthAt..<lengthAt + 4].reduce(0) { $0 << 8 | Int($1) }
                let size = length + (startup ? 0 : 1)
                guard pending.count - frames >= size else { break }
                if !startup, pending[frames] == UInt8(ascii: "B") {
                    checkBind(pending[(frames + 5)..<(frames + size)], link)
                }
                if !startup, pending[frames] == UInt8(ascii: "P") {
                    checkParse(pending[(frames + 5)..<(frames + size)], link)
                }
                startup = false
                frames += size
            }
            if link.cutting == .beforeServer { return }
            guard frames > 0 else { continue }
            if !writeAll(link.server, Array(pending[0..<frames])) { return }
            pending.removeFirst(frames)
        }
    }

    /// A Bind message's body: portal name, then statement name, each NUL-terminated.
    private func checkBind(_ body: ArraySlice<UInt8>, _ link: Link) {
        guard let portalEnd = body.firstIndex(of: 0) else { return }
        let rest = body[(portalEnd + 1)...]
        guard let nameEnd = rest.firstIndex(of: 0) else { return }
        let name = String(decoding: rest[..<nameEnd], as: UTF8.self)
        let cut = state.withLock { state -> Cut? in
            guard let armed = state.armed, armed.statement == name else { return nil }
            state.armed = nil
            state.cuts += 1
            return armed.cut
        }
        if let cut { link.cutting = cut }
    }

    /// A Parse message's body: statement name, then the statement's text, each NUL-terminated. The
    /// `COMMIT` of a transaction to cut is forwarded and its answer withheld (`.afterAnswer`).
    private func checkParse(_ body: ArraySlice<UInt8>, _ link: Link) {
        guard let nameEnd = body.firstIndex(of: 0) else { return }
        let rest = body[(nameEnd + 1)...]
        guard let textEnd = rest.firstIndex(of: 0) else { return }
        let text = String(decoding: rest[..<textEnd], as: UTF8.self)
        if link.cuttingAtCommit {
            if text == "COMMIT" { link.cutting = .afterAnswer }
            return
        }
        let armed = state.withLock { state -> Bool in
            guard let wanted = state.transaction, text.contains(wanted) else { return false }
            state.transaction = nil
            state.cuts += 1
            return true
        }
        if armed { link.cuttingAtCommit = true }
    }

    /// Server to client; once the connection is cut after the answer, the answer is read (frames:
    /// type byte, length including itself) up to ReadyForQuery and dropped, then the connection ends.
    private func forwardAnswers(_ link: Link) {
        defer { link.end() }
        var withheld: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(link.server, &buffer, buffer.count)
            if count <= 0 { return }
            guard link.cutting == .afterAnswer else {
                if !writeAll(link.client, Array(buffer[0..<count])) { return }
                continue
            }
            withheld += buffer[0..<count]
            var offset = 0
            while withheld.count - offset >= 5 {
                let length = withheld[(offset + 1)..<(offset + 5)].reduce(0) { $0 << 8 | Int($1) }
                guard withheld.count - offset >= length + 1 else { break }
                if withheld[offset] == UInt8(ascii: "Z") { return }
                offset += length + 1
            }
        }
    }

    private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return false }
            written += count
        }
        return true
    }
}
#endif
