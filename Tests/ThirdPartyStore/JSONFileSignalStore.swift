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
public final class JSONFileSignalStore: SignalStore, InspectableSignalStore {
    /// The store's folder.
    public let folder: String
    let file: StoreFile
    let runLocks: RunLocks
    var wakePath: String { folder + "/signals.wake" }
    public var location: String { "json:\(file.path)" }

    /// Called in each post, after its changes and before the file is replaced (a test's kill point).
    let postBeforeCommit: (@Sendable () -> Void)?

    /// The store in `folder` (made when missing); its tables are made by the first operation.
    /// `postBeforeCommit`, when given, is called in each post that changes the tables, with the file
    /// locked, just before it is replaced (`SignalStoreProbe.Opening.postBeforeCommit`).
    public init(
        folder: String, completionHistory: Duration = .seconds(86_400),
        postBeforeCommit: (@Sendable () -> Void)? = nil
    ) throws(SignalError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .storeUnavailable(path: folder, reason: "cannot make the folder: \(error.localizedDescription)")
        }
        self.folder = folder
        file = StoreFile(path: folder + "/signals.json", completionHistory: completionHistory)
        runLocks = RunLocks(folder: folder + "/runs")
        self.postBeforeCommit = postBeforeCommit
    }

    /// Releases the proof of life of every run of this object without ending them, as a process
    /// that dies does: other processes (and store objects) then take those runs over.
    public func abandonRuns() {
        runLocks.releaseAll()
    }

    /// Makes `operation` in one transaction, then wakes the centers its answer names: every center
    /// of the folder, which this store's wake-ups cannot tell apart.
    func change<Value>(
        _ purpose: String, beforeCommit: (() -> Void)? = nil,
        _ operation: (inout SignalTables) throws(SignalError) -> SignalTables.Answer<Value>
    ) throws(SignalError) -> Value {
        let answer = try file.transaction(purpose, beforeCommit: beforeCommit, operation)
        if answer.wakeUp != nil { WakeFile.notify(wakePath) }
        return answer.value
    }

    // MARK: SignalStore

    @_spi(SignalStoreDriver)
    public func perform<Result: Sendable>(_ program: StoreProgram<Result>) async throws(SignalError) -> Result {
        let beforeCommit = program.isPost ? postBeforeCommit : nil
        return try change(program.purpose, beforeCommit: beforeCommit) { tables in tables.perform(program) }
    }

    @_spi(SignalStoreDriver)
    public func read<Value: Sendable>(_ read: StoreRead<Value>) async throws(SignalError) -> Value {
        try file.transaction("reading") { $0.read(read) }
    }

    @_spi(SignalStoreDriver)
    public func makeWakeListener() throws(SignalError) -> any SignalWakeListener {
        PollingWakeListener(path: wakePath)
    }

    // MARK: InspectableSignalStore

    /// A run is alive while some descriptor holds its lock file (``RunLocks/isHeld(_:)``).
    @_spi(SignalStoreDriver)
    public func runRecords() async throws(SignalError) -> [RunRecord] {
        let tables = try file.transaction("listing runs") { $0 }
        return tables.runRecords { runLocks.isHeld($0.runID) }
    }
}
