import Foundation
import HandlerKitSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the probe kills itself with SIGKILL — the same as `kill -9` from outside at exactly that
/// point: `--kill-at POINT --kill-after N` kills at the N-th time the process reaches POINT.
enum ProbeFaults {
    enum Point: String {
        case postBeforeCommit, afterClaim, insideHandler, beforeCompletion
    }

    private static let state = FaultState()

    static func configure(point: Point?, after count: Int) {
        state.configure(point: point, after: count)
    }

    static func reached(_ reached: Point) {
        if state.countDown(reached) { kill(getpid(), SIGKILL) }
    }

    /// The hook the store and the center call.
    static let hook: @Sendable (SignalFaultPoint) -> Void = { point in
        switch point {
        case .postBeforeCommit: reached(.postBeforeCommit)
        case .afterClaim: reached(.afterClaim)
        case .beforeCompletion: reached(.beforeCompletion)
        }
    }
}

private final class FaultState: @unchecked Sendable {
    private let lock = NSLock()
    private var point: ProbeFaults.Point?
    private var remaining = 0

    func configure(point: ProbeFaults.Point?, after count: Int) {
        lock.lock()
        self.point = point
        remaining = count
        lock.unlock()
    }

    /// Whether `reached` is the point and this is the time to die.
    func countDown(_ reached: ProbeFaults.Point) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard reached == point else { return false }
        remaining -= 1
        return remaining <= 0
    }
}
