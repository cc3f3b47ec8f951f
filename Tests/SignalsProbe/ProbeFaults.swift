import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the probe kills itself with SIGKILL — the same as `kill -9` from outside at exactly that
/// point: `--kill-at POINT --kill-after N` kills at the N-th time the process reaches POINT.
/// `--stop-at POINT --ready FILE` stops it there instead (SIGSTOP, after creating FILE), until a
/// SIGCONT from outside.
enum ProbeFaults {
    enum Point: String {
        case postBeforeCommit, afterClaim, insideHandler, beforeCompletion
    }

    private static let state = FaultState()
    private static let stop = Locked<(point: Point, ready: String)?>(nil)

    static func configureStop(at point: Point, ready: String) {
        stop.withLock { $0 = (point, ready) }
    }

    static func configure(point: Point?, after count: Int) {
        state.configure(point: point, after: count)
    }

    static func reached(_ reached: Point) {
        if state.countDown(reached) { kill(getpid(), SIGKILL) }
        let stopping = stop.withLock { stop -> String? in
            guard let found = stop, found.point == reached else { return nil }
            stop = nil
            return found.ready
        }
        if let ready = stopping {
            _ = FileManager.default.createFile(atPath: ready, contents: nil)
            // `raise` stops this thread before it returns; `kill(getpid(), …)` would be taken by
            // another thread, and this one would run on until that thread is scheduled.
            raise(SIGSTOP)
        }
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

private final class FaultState: Sendable {
    /// The point to die at, and how many more times it is reached before that.
    private let state = Locked<(point: ProbeFaults.Point?, remaining: Int)>((nil, 0))

    func configure(point: ProbeFaults.Point?, after count: Int) {
        state.withLock { $0 = (point, count) }
    }

    /// Whether `reached` is the point and this is the time to die.
    func countDown(_ reached: ProbeFaults.Point) -> Bool {
        state.withLock { state in
            guard reached == state.point else { return false }
            state.remaining -= 1
            return state.remaining <= 0
        }
    }
}
