import HandlerKit

/// The waiting part of a ``SignalWakeListener``, shared by the stores whose wake-ups arrive as calls
/// (the in-memory store's posts, PostgreSQL's notifications): `wait(until:)` returns when `wake()` was
/// called since the last wait, when the signal is closed, or when the deadline passes.
package final class WakeSignal: Sendable {
    private struct State {
        var woken = false
        var closed = false
        var waiter: CheckedContinuation<Bool, Never>?
        /// Tells a wait's deadline timer whether the waiter it would resume is still the one it started for.
        var generation = 0
    }

    private let state = Locked(State())

    package init() {}

    /// Waits for a wake-up, the close or `deadline`; returns `true` only when it returned because the
    /// deadline passed while it waited.
    @discardableResult
    package func wait(until deadline: ContinuousClock.Instant) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let started = state.withLock { state -> Int? in
                if state.woken || state.closed || deadline <= .now {
                    state.woken = false
                    return nil
                }
                state.generation += 1
                state.waiter = continuation
                return state.generation
            }
            guard let started else { return continuation.resume(returning: false) }
            Task { [weak self] in
                try? await Task.sleep(until: deadline)
                self?.resume(returning: true, ifGeneration: started)
            }
        }
    }

    /// Resumes a waiting `wait`, or makes the next one return at once.
    package func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let waiter = state.waiter else {
                state.woken = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: false)
    }

    /// Resumes a waiting `wait`; every later one returns at once.
    package func close() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: false)
    }

    private func resume(returning timedOut: Bool, ifGeneration generation: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.generation == generation, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: timedOut)
    }
}
