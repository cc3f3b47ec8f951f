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
    /// The promises this center made that none of its tasks has awaited yet, by the signal their
    /// settlement is posted to: how long a settlement is held for such a task, and the settlement
    /// held (claimed by this run, its fallback not called).
    private let reservations = Locked<[String: Reservation]>([:])

    private struct Reservation {
        var holding: Duration
        var held: [HeldSettlement] = []
    }

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

    // MARK: Settlements held for the maker's wait

    /// The promise whose settlement is posted to `signalID` was made here: a settlement this center
    /// claims before one of its tasks awaits it is held for `holding` (``hold(_:generation:)``).
    func reserve(_ signalID: String, holding: Duration) {
        reservations.withLock { $0[signalID] = Reservation(holding: holding) }
    }

    /// A task of this center awaits the promise (or it was not made after all): its reservation
    /// ends, and the settlements held for it are returned, for the task.
    func endReservation(_ signalID: String) -> [HeldSettlement] {
        reservations.withLock { $0.removeValue(forKey: signalID)?.held ?? [] }
    }

    /// Holds `delivery`, claimed by a pass of `generation`, when it settles a promise this center made
    /// and none of its tasks awaits yet; `false` when it is not held (it goes to the fallback).
    func hold(_ delivery: ClaimedDelivery, generation: Int) -> Bool {
        reservations.withLock { all in
            guard var reservation = all[delivery.signalID] else { return false }
            // One claimed earlier by a pass of an earlier generation was given back by a suspension.
            reservation.held.removeAll { $0.generation != generation || $0.delivery.key == delivery.key }
            reservation.held.append(
                HeldSettlement(delivery: delivery, generation: generation, until: .now + reservation.holding))
            all[delivery.signalID] = reservation
            return true
        }
    }

    /// The settlements of a reservation that a pass of `generation` held for as long as it allows,
    /// taken with the reservation (no task of this center awaited the promise in time: the fallback
    /// receives them); empty when none is due.
    func takeExpiredHolds(generation: Int) -> [HeldSettlement] {
        let now = ContinuousClock.now
        return reservations.withLock { all in
            guard
                let (signalID, reservation) = all.first(where: { entry in
                    entry.value.held.contains { $0.generation == generation && $0.until <= now }
                })
            else { return [] }
            all[signalID] = nil
            return reservation.held.filter { $0.generation == generation }
        }
    }

    /// When the first settlement held by a pass of `generation` is due for the fallback; `nil` when
    /// none is held.
    func nextHoldEnd(generation: Int) -> ContinuousClock.Instant? {
        reservations.withLock { all in
            all.values.flatMap(\.held).filter { $0.generation == generation }.map(\.until).min()
        }
    }

    /// Whether a pass of `generation` holds a settlement.
    func holdsSettlements(generation: Int) -> Bool {
        nextHoldEnd(generation: generation) != nil
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

/// A settlement claimed by this run and held for a task of the center that made the promise.
struct HeldSettlement: Sendable {
    let delivery: ClaimedDelivery
    /// The generation of the pass that claimed it: a suspension since then gave the claim back.
    let generation: Int
    /// From then on the fallback receives it.
    let until: ContinuousClock.Instant
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
