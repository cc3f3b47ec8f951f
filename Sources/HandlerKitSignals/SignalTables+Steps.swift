import Foundation

extension SignalTables {
    /// Makes each step of `plan` in order; returns how many records each changed.
    mutating func run(_ plan: StorePlan) -> [Int] {
        run(plan.steps)
    }

    /// Makes each of `steps` in order; returns how many records each changed.
    mutating func run(_ steps: [StoreStep]) -> [Int] {
        steps.map { apply($0) }
    }

    /// Makes one step; returns how many records it changed.
    private mutating func apply(_ step: StoreStep) -> Int {
        switch step {
        case .interruptClaims(let run, let attempts):
            return updateDeliveries(where: { $0.state == .claimed && $0.claimedBy == run }) {
                $0.claimedBy = nil
                guard $0.started else {
                    $0.state = .pending
                    $0.attempt -= 1
                    return
                }
                $0.started = false
                $0.crashed = true
                $0.lastError = attempts.reason + String($0.attempt)
                if $0.attempt >= attempts.maximumAttempts {
                    $0.state = .dead
                } else {
                    $0.state = .pending
                    $0.notBefore = Date(timeIntervalSince1970: attempts.retryAt)
                }
            }
        case .giveBackClaims(let run, let keeping):
            let kept = Set(keeping)
            var given = 0
            for (id, row) in deliveries where row.state == .claimed && row.claimedBy == run && !kept.contains(id) {
                deliveries[id]?.claimedBy = nil
                deliveries[id]?.state = .pending
                deliveries[id]?.attempt -= 1
                deliveries[id]?.started = false
                given += 1
            }
            return given
        case .removeRunTiedDeliveries(let run):
            return removeDeliveries { $0.ownerRun == run && $0.lifetime == .run && $0.state != .dead }
        case .removeRunTiedConsumers(let run):
            return removeConsumers { $0.runID == run && $0.lifetime == .run }
        case .moveConsumers(let run, let taker):
            var moved = 0
            for index in consumers.indices where consumers[index].record.runID == run {
                consumers[index].record.runID = taker
                moved += 1
            }
            return moved
        case .moveDeliveries(let run, let taker):
            return updateDeliveries(where: { $0.ownerRun == run }) { $0.ownerRun = taker }
        case .moveConsumer(let id, let run):
            guard let index = consumers.firstIndex(where: { $0.record.id.rawValue == id }) else { return 0 }
            consumers[index].record.runID = run
            return 1
        case .movePendingDeliveries(let consumer, let run):
            guard consumers.contains(where: { $0.record.id.rawValue == consumer }) else { return 0 }
            return updateDeliveries(where: { $0.consumerID.rawValue == consumer && $0.state == .pending }) {
                $0.ownerRun = run
            }
        case .removeRun(let run):
            runStarts[run] = nil
            runProcesses[run] = nil
            return runs.removeValue(forKey: run) == nil ? 0 : 1
        case .removePendingDeliveries(let consumer):
            return removeDeliveries { $0.consumerID.rawValue == consumer && $0.state == .pending }
        case .removeConsumer(let id):
            return removeConsumers { $0.id.rawValue == id }
        case .removeUnusedSignals(let now):
            let used = Set(consumers.map(\.record.signalID))
            let before = signals.count
            signals = signals.filter { id, signal in
                used.contains(id) || (signal.keepUntil.map { $0.timeIntervalSince1970 >= now } ?? false)
            }
            return before - signals.count
        case .takePostKey(let key, let now, let keepUntil):
            if let kept = postKeys[key], kept.keepUntil >= now { return 0 }
            postKeys[key] = PostKey(answer: "", keepUntil: keepUntil)
            return 1
        case .recordPostKey(let key, let answer):
            guard postKeys[key] != nil else { return 0 }
            postKeys[key]?.answer = answer
            return 1
        case .forgetPostKeys(let now):
            let count = postKeys.count
            postKeys = postKeys.filter { $0.value.keepUntil >= now }
            return count - postKeys.count
        case .forgetCompletions(let now):
            let count = completions.count
            completions.removeAll { $0.completedAt.timeIntervalSince1970 < now - completionHistory }
            return count - completions.count
        case .insertConsumer(let consumer, _):
            if consumers.contains(where: { $0.record.id == consumer.id }) { return 0 }
            consumers.append(Consumer(record: consumer))
            return 1
        case .deliverKeptRevision(let consumer, let now):
            guard let kept = signals[consumer.signalID], let until = kept.keepUntil,
                until.timeIntervalSince1970 >= now
            else { return 0 }
            addDelivery(
                for: consumer, revision: kept.revision, payload: kept.payload,
                now: Date(timeIntervalSince1970: now), due: Date(timeIntervalSince1970: max(now, kept.notBefore ?? now))
            )
            return 1
        case .markServedWhenDelivered(let consumer):
            guard deliveries.values.contains(where: { $0.consumerID.rawValue == consumer }),
                let index = consumers.firstIndex(where: { $0.record.id.rawValue == consumer })
            else { return 0 }
            consumers[index].delivered = true
            return 1
        case .requeueDead(let key, let now):
            return updateDeliveries(where: { $0.key.rawValue == key && $0.state == .dead }) {
                $0.state = .pending
                $0.attempt = 0
                $0.notBefore = Date(timeIntervalSince1970: now)
                $0.lastError = nil
                $0.started = false
                $0.crashed = false
            }
        case .removeDelivery(let key):
            return removeDeliveries { $0.key.rawValue == key && $0.state != .claimed }
        case .removeCompletions(let key, let before):
            let count = completions.count
            completions.removeAll {
                (key == nil || $0.record.key.rawValue == key) && $0.completedAt.timeIntervalSince1970 < before
            }
            return count - completions.count
        case .removePromises(let now):
            let count = promises.count
            promises = promises.filter { $0.value.keptUntil.map { $0.timeIntervalSince1970 >= now } ?? true }
            return count - promises.count
        case .releaseClaim(let release):
            guard var row = claimedRow(release.rowID, run: release.run, attempt: release.attempt) else { return 0 }
            row.state = release.state
            row.claimedBy = nil
            row.started = false
            row.crashed = false
            row.lastError = release.reason
            if let due = release.dueAt { row.notBefore = Date(timeIntervalSince1970: due) }
            deliveries[release.rowID] = row
            return 1
        case .removeClaimed(let row, let run, let attempt):
            guard claimedRow(row, run: run, attempt: attempt) != nil else { return 0 }
            deliveries[row] = nil
            return 1
        case .removeBody:
            return 0
        case .recordCompletion(let delivery, let now):
            completions.append(
                Completion(
                    record: CompletionRecord(key: delivery.key, runID: delivery.runID, attempt: delivery.attempt),
                    consumerID: delivery.consumerID, signalID: delivery.signalID, revision: delivery.revision,
                    completedAt: Date(timeIntervalSince1970: now)))
            return 1
        case .removeSignalIfUnused(let id, let now):
            guard let signal = signals[id], !(signal.keepUntil.map { $0.timeIntervalSince1970 >= now } ?? false),
                !consumers.contains(where: { $0.record.signalID == id })
            else { return 0 }
            signals[id] = nil
            return 1
        case .parkUnreadable(let row, let reason):
            guard deliveries[row] != nil else { return 0 }
            deliveries[row]?.state = .dead
            deliveries[row]?.claimedBy = nil
            deliveries[row]?.lastError = reason
            return 1
        case .insertPromise(let promise):
            guard promises[promise.id] == nil else { return 0 }
            promises[promise.id] = promise
            return 1
        case .startAttempt(let row, let run, let attempt):
            guard runs[run] != nil, claimedRow(row, run: run, attempt: attempt) != nil else { return 0 }
            deliveries[row]?.started = true
            return 1
        case .insertDelivery(let consumer, let revision, let payload, let now, let due, let orderKey):
            guard let index = consumers.firstIndex(where: { $0.record.id.rawValue == consumer }) else { return 0 }
            addDelivery(
                for: consumers[index].record, revision: revision, payload: payload,
                now: Date(timeIntervalSince1970: now), due: Date(timeIntervalSince1970: due), orderKey: orderKey)
            return 1
        case .insertDeliveries(let made, let now):
            return made.reduce(0) { count, delivery in
                count
                    + apply(
                        .insertDelivery(
                            consumer: delivery.consumer, revision: delivery.revision, payload: delivery.payload,
                            now: now, due: delivery.due, orderKey: delivery.orderKey))
            }
        case .debounceDelivery(let delivery, let now):
            guard let debounce = delivery.debounce else { return 0 }
            let waiting = deliveries.first { _, row in
                row.consumerID.rawValue == delivery.consumer && row.debounceKey == debounce.key
                    && row.state == .pending && row.attempt == 0
            }
            guard let (rowID, row) = waiting else {
                guard let index = consumers.firstIndex(where: { $0.record.id.rawValue == delivery.consumer }) else {
                    return 0
                }
                addDelivery(
                    for: consumers[index].record, revision: delivery.revision, payload: delivery.payload,
                    now: Date(timeIntervalSince1970: now), due: Date(timeIntervalSince1970: delivery.due),
                    orderKey: delivery.orderKey, debounceKey: debounce.key)
                return 1
            }
            let latest = debounce.maximumDelay.map { row.madeAt.timeIntervalSince1970 + $0 } ?? delivery.due
            deliveries[rowID]?.payload = delivery.payload
            deliveries[rowID]?.notBefore = Date(timeIntervalSince1970: min(delivery.due, latest))
            return 1
        case .markServed(let consumer):
            guard let index = consumers.firstIndex(where: { $0.record.id.rawValue == consumer }) else { return 0 }
            consumers[index].delivered = true
            return 1
        case .keepSignal(let id, let revision, let payload, let now, let keepUntil, let notBefore):
            signals[id] = Signal(
                revision: revision, postedAt: Date(timeIntervalSince1970: now), payload: payload,
                keepUntil: keepUntil.map(Date.init(timeIntervalSince1970:)), notBefore: notBefore)
            return 1
        case .removeSignal(let id):
            return signals.removeValue(forKey: id) == nil ? 0 : 1
        case .settlePromise(let id, let settlement):
            guard promises[id] != nil, promises[id]?.settlement == nil else { return 0 }
            promises[id]?.settlement = settlement
            return 1
        }
    }

    private mutating func updateDeliveries(
        where matches: (Delivery) -> Bool, _ change: (inout Delivery) -> Void
    ) -> Int {
        var changed = 0
        for (id, delivery) in deliveries where matches(delivery) {
            change(&deliveries[id, default: delivery])
            changed += 1
        }
        return changed
    }

    private mutating func removeDeliveries(where matches: (Delivery) -> Bool) -> Int {
        let before = deliveries.count
        deliveries = deliveries.filter { !matches($0.value) }
        return before - deliveries.count
    }

    private mutating func removeConsumers(where matches: (ConsumerRecord) -> Bool) -> Int {
        let before = consumers.count
        consumers.removeAll { matches($0.record) }
        return before - consumers.count
    }
}
