import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals

extension InMemorySignalStore: InspectableSignalStore {
    /// A run is alive from `beginRun` until `endRun`, except while it is suspended.
    @_spi(SignalStoreDriver)
    public func runRecords() async throws(SignalError) -> [RunRecord] {
        let pid = Int(ProcessInfo.processInfo.processIdentifier)
        return state.withLock { state in
            state.runs.map { run, component in
                RunRecord(
                    runID: run, component: component, host: nil, processID: pid,
                    startedAt: state.runStarts[run] ?? Date(timeIntervalSince1970: 0), heartbeatAt: nil,
                    isAlive: !state.suspended.contains(run))
            }
            .sorted { ($0.startedAt, $0.runID) < ($1.startedAt, $1.runID) }
        }
    }

    @_spi(SignalStoreDriver)
    public func deliveries(matching filter: DeliveryFilter) async throws(SignalError) -> [DeliveryRecord] {
        state.withLock { state in
            let all = state.deliveries.sorted { $0.key < $1.key }.lazy.map { _, row in
                DeliveryRecord(
                    key: row.key, consumerID: row.consumerID, component: row.component, lifetime: row.lifetime,
                    handlerID: row.handlerID, signalID: row.signalID, revision: row.revision, state: row.state,
                    ownerRun: row.ownerRun, claimedBy: row.claimedBy,
                    claimedAt: row.state == .claimed ? row.claimedAt : nil,
                    attempts: row.attempt, started: row.started,
                    previousAttemptCrashed: row.crashed, dueAt: row.notBefore, lastError: row.lastError,
                    madeAt: row.madeAt, handler: filter.includesBodies ? row.handler : nil,
                    payload: filter.includesBodies ? row.payload : nil)
            }
            .filter { filter.matches($0) }
            return Array(all.prefix(max(0, filter.limit ?? Int.max)))
        }
    }

    @_spi(SignalStoreDriver)
    public func deliveryCounts() async throws(SignalError) -> [DeliveryCount] {
        state.withLock { state in
            var counts: [String: [DeliveryFilter.State: DeliveryCount]] = [:]
            for row in state.deliveries.values {
                let kind = DeliveryFilter.state(of: row.state, lastError: row.lastError)
                var count =
                    counts[row.component]?[kind]
                    ?? DeliveryCount(component: row.component, state: kind, count: 0, oldestMadeAt: row.madeAt)
                count.count += 1
                count.oldestMadeAt = min(count.oldestMadeAt, row.madeAt)
                counts[row.component, default: [:]][kind] = count
            }
            return counts.values.flatMap(\.values)
        }
    }

    @_spi(SignalStoreDriver)
    public func signalRecords() async throws(SignalError) -> [SignalRecord] {
        state.withLock { state in
            state.signals.map { id, signal in
                SignalRecord(
                    signalID: id, revision: signal.revision, postedAt: signal.postedAt, keptUntil: signal.keepUntil)
            }
            .sorted { $0.signalID < $1.signalID }
        }
    }

    @_spi(SignalStoreDriver)
    public func completions(matching filter: CompletionFilter) async throws(SignalError) -> [CompletionEntry] {
        state.withLock { state in
            let all = state.completions.lazy.map { completion in
                CompletionEntry(
                    key: completion.record.key, consumerID: completion.consumerID, signalID: completion.signalID,
                    revision: completion.revision, runID: completion.record.runID, attempt: completion.record.attempt,
                    completedAt: completion.completedAt)
            }
            .filter { filter.matches($0) }
            return Array(all.prefix(max(0, filter.limit ?? Int.max)))
        }
    }
}

// MARK: Promises
