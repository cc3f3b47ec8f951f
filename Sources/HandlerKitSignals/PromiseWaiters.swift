import Foundation
import HandlerKit

/// The tasks of one center awaiting promises that have a fallback handler, by the signal their
/// settlement is posted to, and the timer that settles this process's promises at their deadlines.
///
/// While a task awaits such a promise, its center holds the promise's fallback consumer: when the
/// center claims the settlement's delivery, it hands it to the task (completing the delivery in its
/// run, so the completion guard decides who consumed it) instead of calling the fallback handler.
package final class PromiseWaiters: Sendable {
    private let waiters = Locked<[String: [PromiseWaiter]]>([:])
    private let timer = Locked<(deadline: Date, task: Task<Void, Never>)?>(nil)

    package init() {}

    func add(_ waiter: PromiseWaiter) {
        waiters.withLock { $0[waiter.signalID, default: []].append(waiter) }
    }

    func remove(_ waiter: PromiseWaiter) {
        waiters.withLock { all in
            all[waiter.signalID]?.removeAll { $0 === waiter }
            if all[waiter.signalID]?.isEmpty == true { all[waiter.signalID] = nil }
        }
    }

    /// The payload member that names the settled promise's value type.
    static let valueTypeMember = "promiseValueType"

    /// A task waiting for the settlement `delivery` carries (of its value type), taken for one
    /// hand-over; `nil` when none waits.
    func take(for delivery: ClaimedDelivery) -> PromiseWaiter? {
        guard let candidates = waiters.withLock({ $0[delivery.signalID] }) else { return nil }
        guard case .object(let members)? = try? HandlerValue(json: delivery.payload),
            case .string(let valueType)? = members[Self.valueTypeMember]
        else { return nil }
        return candidates.first { $0.accepts(valueType) && $0.take() }
    }

    /// Runs `keep` at `deadline`, unless a timer runs earlier already; the task ends with the center.
    func schedule(at deadline: Date, _ keep: @escaping @Sendable () async -> Void) {
        timer.withLock { current in
            if let current, current.deadline <= deadline, !current.task.isCancelled { return }
            current?.task.cancel()
            let task = Task {
                try? await Task.sleep(for: .seconds(max(0, deadline.timeIntervalSinceNow)))
                if Task.isCancelled { return }
                self.timer.withLock { if $0?.deadline == deadline { $0 = nil } }
                await keep()
            }
            current = (deadline, task)
        }
    }

    /// Stops the deadline timer.
    func stopTimer() {
        timer.withLock { current in
            current?.task.cancel()
            current = nil
        }
    }
}

/// One task awaiting a promise with a fallback handler.
final class PromiseWaiter: Sendable {
    private enum Phase {
        case waiting
        /// A delivery is being completed for it.
        case takenOver
        case handedOver(payload: [UInt8])
        case cancelled
    }

    let signalID: String
    let listener: any SignalWakeListener
    /// Whether it takes a promise stored with this value type.
    let accepts: @Sendable (String) -> Bool
    private let phase = Locked(Phase.waiting)
    private let settled = WakeSignal()

    init(signalID: String, listener: any SignalWakeListener, accepts: @escaping @Sendable (String) -> Bool) {
        self.signalID = signalID
        self.listener = listener
        self.accepts = accepts
    }

    /// Takes the waiter for a hand-over; `false` when it is not waiting.
    func take() -> Bool {
        phase.withLock { phase in
            guard case .waiting = phase else { return false }
            phase = .takenOver
            return true
        }
    }

    /// The delivery taken for it was completed in its run: it receives the payload.
    func handOver(_ payload: [UInt8]) {
        phase.withLock { $0 = .handedOver(payload: payload) }
        settled.wake()
        listener.close()
    }

    /// The delivery taken for it was not completed: it waits again.
    func giveBack() {
        phase.withLock { $0 = .waiting }
        settled.wake()
    }

    /// Stops waiting; `false` when a delivery is being handed to it (then ``payload()`` returns it).
    func cancel() -> Bool {
        phase.withLock { phase in
            guard case .waiting = phase else { return false }
            phase = .cancelled
            return true
        }
    }

    /// The payload handed over; `nil` while none is. During a hand-over, waits until it is done.
    func payload() async -> [UInt8]? {
        while true {
            switch phase.withLock({ $0 }) {
            case .handedOver(let payload): return payload
            case .waiting, .cancelled: return nil
            case .takenOver: await settled.wait(until: .now + .seconds(1))
            }
        }
    }
}
