import HandlerKit

/// Runs asynchronous operations one at a time, in the order they asked (a center's `suspend`,
/// `resume` and `stop`).
final class TransitionQueue: Sendable {
    private let state = Locked<(busy: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func run<T>(_ body: () async throws(SignalError) -> T) async throws(SignalError) -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if !state.busy {
                    state.busy = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        defer {
            let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if state.waiting.isEmpty {
                    state.busy = false
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
        return try await body()
    }
}
