import Foundation
import HandlerKit
@_spi(SignalStoreDriver) import HandlerKitSignals
import HandlerKitSignalsSQLite
import HandlerKitSignalsTestKit

#if PostgreSQL
import HandlerKitSignalsPostgres
#endif

/// The store the probe uses: `--db PATH` (SQLite), or `--postgres URL [--host ID] [--lease SECONDS]`
/// (PostgreSQL, the host id standing for the machine the process runs on). `postBeforeCommit` is
/// called inside each post's transaction, before its commit (the TestKit probe's kill point).
func openProbeStore(
    _ arguments: ProbeArguments, postBeforeCommit: (@Sendable () -> Void)? = nil
) throws -> any SignalStore {
    var hook: (@Sendable (SignalFaultPoint) -> Void)?
    if let postBeforeCommit {
        hook = { @Sendable (point: SignalFaultPoint) in
            if point == .postBeforeCommit { postBeforeCommit() }
        }
    }
    if let url = arguments.values["postgres"] {
        #if PostgreSQL
        var options = PostgresSignalStore.Options(
            hostID: arguments.values["host"] ?? ProcessInfo.processInfo.hostName,
            lease: .seconds(try arguments.int("lease", default: 30)))
        options.faultHook = hook
        return try PostgresSignalStore(url: url, options: options)
        #else
        throw ProbeError(
            "--postgres \(url): this probe was built without the package trait PostgreSQL (swift build --traits PostgreSQL)"
        )
        #endif
    }
    var options = SQLiteSignalStore.Options()
    options.faultHook = hook
    return try SQLiteSignalStore(path: try arguments.string("db"), options: options)
}

/// The store the probe opened, for its handlers (which look up completions in it).
enum ProbeContext {
    private static let opened = Locked<(any SignalStore)?>(nil)

    static var store: (any SignalStore)? {
        get { opened.withLock { $0 } }
        set { opened.withLock { $0 = newValue } }
    }

    private static let held = Locked<String?>(nil)

    /// A file the `slowRecord` handlers of this process wait for before they start, and the `slow`
    /// ones after they logged their start (`nil`: none).
    static var holdFile: String? {
        get { held.withLock { $0 } }
        set { held.withLock { $0 = newValue } }
    }
}
