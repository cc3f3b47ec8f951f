import Foundation
import GRDB
@_spi(SignalStoreDriver) import HandlerKitSignals

extension SQLiteSignalStore {
    /// The connection a new store object starts with, opened on the calling thread without waiting:
    /// an attempt that fails only for what other processes do at that moment is made again at once,
    /// twice at most (the next attempt checks the files anew, and so names what is wrong with them);
    /// while they keep the database busy, it is `.closed`, and the store's first operation opens it,
    /// waiting for them without holding a thread. So making a store never sleeps. Anything else that
    /// is wrong is thrown.
    static func firstConnection(
        path: String, options: Options, readsOnly: Bool
    ) throws(SignalError) -> SQLiteConnectionState {
        for _ in 0..<3 {
            do {
                return .open(
                    readsOnly
                        ? try openForReading(path: path, options: options)
                        : try openDatabase(path: path, options: options))
            } catch {
                if isTransient(error) { continue }
                throw openingError(error, files: StoreFiles(path: path), operation: "opening the store")
            }
        }
        return .closed
    }

    /// Opens the database of the store at `path`: checks its files, refuses what is not a signal store
    /// or is newer, switches it to WAL, migrates it and marks it.
    ///
    /// One connection does it all: it checks the database before anything else (in its preparation,
    /// before WAL is switched on, so a foreign database is refused untouched). A separate connection
    /// to check it would checkpoint the `-wal` file when it closes (syncing it, the folder and the
    /// database file) and remove it, for the store's connection to make it again.
    ///
    /// SQLite answers a step of opening with `SQLITE_BUSY` while another connection writes (switching
    /// a new database to WAL, migrating) or while the last connection of another process checkpoints
    /// and removes the `-wal` file on closing: the caller tries again (`isTransient(_:)`).
    static func openDatabase(path: String, options: Options) throws -> DatabaseQueue {
        let files = StoreFiles(path: path)
        try files.checkBeforeOpening()
        try files.makeMissingFiles(protection: options.fileProtection)
        let queue = try DatabaseQueue(path: path, configuration: configuration(options, path: path))
        try queue.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                try SQLiteSchema.migrate(db, path: path)
                return .commit
            }
        }
        files.writeMarker(protection: options.fileProtection, logger: options.logger)
        return queue
    }

    /// Opens the database again after a suspension closed it. The files are checked as at the first
    /// opening; a database that still bears this version's mark needs no migration, whose write
    /// transaction would wait for other processes' writes: one read on the new connection confirms
    /// the mark. Anything else (another version migrated the store meanwhile, the file was replaced,
    /// the database was busy) goes the way of the first opening, which reports what is wrong.
    static func reopenDatabase(path: String, options: Options) throws -> DatabaseQueue {
        let files = StoreFiles(path: path)
        do {
            try files.checkBeforeOpening()
            try files.makeMissingFiles(protection: options.fileProtection)
            let queue = try DatabaseQueue(path: path, configuration: configuration(options, path: path))
            let marked = try queue.read { db in
                try Int32.fetchOne(db, sql: "PRAGMA application_id") == SQLiteSchema.applicationID
                    && Int.fetchOne(db, sql: "PRAGMA user_version") == SQLiteSchema.version
            }
            if marked { return queue }
            try queue.close()
        } catch {
            // Opened the first opening's way below, which names what is wrong.
        }
        return try openDatabase(path: path, options: options)
    }

    /// The configuration of the store's connection to the database at `path`.
    private static func configuration(_ options: Options, path: String) -> Configuration {
        var configuration = Configuration()
        // No busy handler: a thread would sleep in it. `SQLITE_BUSY` comes back at once, and the
        // waiting task tries again suspended (`SQLiteConnection.swift`).
        configuration.busyMode = .immediateError
        configuration.label = "HandlerKitSignals"
        let synchronous = options.flushEveryCommit ? "FULL" : "NORMAL"
        let maximumSize = options.maximumSize
        configuration.prepareDatabase { db in
            // First, before anything changes the file: a database that is not a signal store, or is
            // a newer one, is refused untouched (`SignalError.notASignalStore`, `.newerSchema`).
            // In one read transaction: a process migrating the new store meanwhile is seen before or
            // after its migration, not halfway.
            try db.inTransaction(.deferred) {
                _ = try SQLiteSchema.version(of: db, path: path)
                return .commit
            }
            // WAL is switched on here rather than with GRDB's `journalMode = .wal`, which also makes
            // sure of a non-empty `-wal` file for a pool's readers (this store has one connection): at
            // every opening it reads the file's attributes through FileManager (the owner's name from
            // the user database) and, after a suspension removed the file, commits a table made and
            // dropped, with its syncs.
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode == "wal" else {
                throw DatabaseError(message: "could not switch the database to WAL mode (journal mode \(mode ?? "?"))")
            }
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
            // The ephemeral tables and statement journals of the store's statements are small; kept in
            // memory they cost an app extension less than temporary files, each of which SQLite gives a
            // cache of its own.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(walAutocheckpointPages)")
            if let maximumSize {
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                try db.execute(sql: "PRAGMA max_page_count = \(max(1, maximumSize / max(1, pageSize)))")
            }
        }
        return configuration
    }

    /// The pages the `-wal` file grows to before a commit copies them into the database file: what a
    /// lost `-wal` file can cost (40 MB with 4 KB pages). Checkpointing more often lengthens the
    /// deliveries that wait for a checkpoint (see CONTRIBUTING.md).
    static let walAutocheckpointPages = 10_000
}
