import Foundation
@_spi(SignalStoreDriver) import HandlerKitSignals
@_spi(SignalStoreDriver) import HandlerKitSignalsInspection

/// A signal store over one JSON file, written as a third party would write a store without SQL: on
/// the table engine of `HandlerKitSignals` (`SignalTables`, the `SignalStoreDriver` SPI), which
/// holds every rule of a delivery's life. The store only keeps the tables, proves which runs are
/// alive, and wakes centers:
///
/// - `<folder>/signals.json`: the tables; each requirement is one ``StoreFile`` transaction (an
///   exclusive `flock` on `signals.json.lock`, the tables decoded, the engine's method of the same
///   name called, the file replaced when the tables changed).
/// - `<folder>/runs/<runID>.lock`: a run's proof of life (``RunLocks``).
/// - `<folder>/signals.wake`: the wake-ups (``WakeFile``, ``PollingWakeListener``).
///
/// Several store objects, in one process or several, may share a folder. Every operation reads and
/// writes the whole file: a store for tests and small tools, not for many deliveries a second.
final class JSONFileSignalStore: SignalStore, PromiseStore, InspectableSignalStore {
    /// The store's folder.
    let folder: String
    let file: StoreFile
    let runLocks: RunLocks
    var wakePath: String { folder + "/signals.wake" }
    var location: String { "json:\(file.path)" }

    /// The store in `folder` (made when missing); its tables are made by the first operation.
    init(folder: String, completionHistory: Duration = .seconds(86_400)) throws(SignalError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .storeUnavailable(path: folder, reason: "cannot make the folder: \(error.localizedDescription)")
        }
        self.folder = folder
        file = StoreFile(path: folder + "/signals.json", completionHistory: completionHistory)
        runLocks = RunLocks(folder: folder + "/runs")
    }

    /// Releases the proof of life of every run of this object without ending them, as a process
    /// that dies does: other processes (and store objects) then take those runs over.
    func abandonRuns() {
        runLocks.releaseAll()
    }

    /// Makes `operation` in one transaction, then wakes the centers its answer names: every center
    /// of the folder, which this store's wake-ups cannot tell apart.
    func change<Value>(
        _ purpose: String, _ operation: (inout SignalTables) throws(SignalError) -> SignalTables.Answer<Value>
    ) throws(SignalError) -> Value {
        let answer = try file.transaction(purpose, operation)
        if answer.wakeUp != nil { WakeFile.notify(wakePath) }
        return answer.value
    }

    // MARK: SignalStore

    func apply(_ plan: StorePlan) async throws(SignalError) -> [Int] {
        try change(plan.purpose) { $0.apply(plan) }
    }

    func post(_ signalID: String, payload: [UInt8], keepUntil: Date?) async throws(SignalError) -> PostResult {
        try change("posting \(signalID)") { $0.post(signalID, payload: payload, keepUntil: keepUntil) }
    }

    func claim(_ request: ClaimRequest) async throws(SignalError) -> ClaimedBatch {
        try change("claiming deliveries of run \(request.runID)") {
            $0.claim(request)
        }
    }

    func start(_ delivery: ClaimedDelivery) async throws(SignalError) -> StartOutcome {
        try change("starting delivery \(delivery.key)") { $0.start(delivery) }
    }

    func complete(
        _ delivery: ClaimedDelivery, endingConsumer: Bool, thenStarting next: ClaimedDelivery?
    ) async throws(SignalError) -> CompletionOutcome {
        try change("completing delivery \(delivery.key)") {
            $0.complete(delivery, endingConsumer: endingConsumer, thenStarting: next)
        }
    }

    func read<Value: Sendable>(_ read: StoreRead<Value>) async throws(SignalError) -> Value {
        try file.transaction("reading") { $0.read(read) }
    }

    func makeWakeListener() throws(SignalError) -> any SignalWakeListener {
        PollingWakeListener(path: wakePath)
    }

    // MARK: PromiseStore

    func insertPromise(_ promise: PromiseRecord, applying plan: StorePlan) async throws(SignalError) -> Bool {
        try change("making promise \(promise.id)") { $0.insertPromise(promise, applying: plan) }
    }

    func settlePromise(
        _ id: String, with settlement: PromiseSettlementRecord, ifValueTypeIn valueTypes: [String]?,
        thenPosting post: @escaping @Sendable (PromiseRecord) throws(SignalError) -> PromiseSettlementPost?
    ) async throws(SignalError) -> PromiseRecord? {
        try change("settling promise \(id)") { tables throws(SignalError) in
            try tables.settlePromise(id, with: settlement, ifValueTypeIn: valueTypes, thenPosting: post)
        }
    }

    // MARK: InspectableSignalStore

    /// A run is alive while some descriptor holds its lock file (``RunLocks/isHeld(_:)``).
    func runRecords() async throws(SignalError) -> [RunRecord] {
        let tables = try file.transaction("listing runs") { $0 }
        return tables.runRecords { runLocks.isHeld($0.runID) }
    }
}
