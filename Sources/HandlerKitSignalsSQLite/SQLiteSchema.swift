import Foundation
import GRDB
@_spi(SignalStoreDriver) import HandlerKitSignals

/// The SQLite store's schema, marked with its own `PRAGMA application_id` and versioned in
/// `PRAGMA user_version`. The core's `SchemaMigration` runs the steps from the version found on, in
/// one `BEGIN IMMEDIATE` transaction, so processes opening a new or older store at the same time
/// migrate it once. A store of a newer version, and a database that is not a signal store, are
/// refused, untouched.
enum SQLiteSchema {
    /// The schema version this code writes and reads.
    static var version: Int { migration.version }

    /// The application id of a signal store ("HKSg").
    static let applicationID: Int32 = 0x484B_5367

    /// The tables of a signal store (version 1 stores were made before they were marked with the
    /// application id, and are recognised by these).
    static let tables: Set<String> = ["runs", "consumers", "signals", "deliveries", "delivery_bodies", "completions"]

    /// The tables later versions added (a store of the current version whose mark was removed is
    /// still recognised).
    static let laterTables: Set<String> = ["promises", "post_keys"]

    /// The steps: `steps[n]` migrates version n to n + 1.
    static let migration = SchemaMigration<String>(steps: [
        """
        CREATE TABLE runs (
            run_id TEXT PRIMARY KEY NOT NULL,
            component TEXT NOT NULL,
            pid INTEGER NOT NULL,
            started_at REAL NOT NULL
        );
        CREATE INDEX runs_by_component ON runs(component);
        CREATE TABLE consumers (
            consumer_id TEXT PRIMARY KEY NOT NULL,
            signal_id TEXT NOT NULL,
            component TEXT NOT NULL,
            run_id TEXT NOT NULL,
            lifetime TEXT NOT NULL,
            mode TEXT NOT NULL,
            handler BLOB NOT NULL,
            handler_id TEXT NOT NULL,
            delivered INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL
        );
        CREATE INDEX consumers_by_signal ON consumers(signal_id);
        CREATE INDEX consumers_by_run ON consumers(run_id);
        CREATE INDEX consumers_by_component ON consumers(component);
        CREATE TABLE signals (
            signal_id TEXT PRIMARY KEY NOT NULL,
            revision INTEGER NOT NULL,
            -- The latest revision's payload while the signal is kept for late consumers (else empty).
            payload BLOB NOT NULL,
            posted_at REAL NOT NULL,
            keep_until REAL
        );
        CREATE TABLE deliveries (
            id INTEGER PRIMARY KEY,
            delivery_key TEXT NOT NULL UNIQUE,
            consumer_id TEXT NOT NULL,
            signal_id TEXT NOT NULL,
            revision INTEGER NOT NULL,
            component TEXT NOT NULL,
            owner_run TEXT NOT NULL,
            lifetime TEXT NOT NULL,
            handler_id TEXT NOT NULL,
            state TEXT NOT NULL,
            claimed_by TEXT,
            attempt INTEGER NOT NULL DEFAULT 0,
            not_before REAL NOT NULL,
            last_error TEXT,
            created_at REAL NOT NULL
        );
        -- The only index the hot path needs: every post and completion writes each index of this table,
        -- and the table holds only open and dead deliveries, so the rare lookups by consumer or
        -- component scan it.
        CREATE INDEX deliveries_by_owner ON deliveries(owner_run, state, not_before);
        -- The large parts of a delivery, apart: claiming and releasing rewrite only the small row above.
        CREATE TABLE delivery_bodies (
            delivery_id INTEGER PRIMARY KEY NOT NULL,
            handler BLOB NOT NULL,
            payload BLOB NOT NULL
        );
        CREATE TABLE completions (
            delivery_key TEXT NOT NULL,
            consumer_id TEXT NOT NULL,
            signal_id TEXT NOT NULL,
            revision INTEGER NOT NULL,
            run_id TEXT NOT NULL,
            attempt INTEGER NOT NULL,
            completed_at REAL NOT NULL
        );
        CREATE INDEX completions_by_key ON completions(delivery_key);
        """,
        // 2: whether a claimed delivery's handler was started (`SignalStore.start`), and whether its
        // previous attempt was started and never settled (its process died).
        """
        ALTER TABLE deliveries ADD COLUMN started INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE deliveries ADD COLUMN crashed INTEGER NOT NULL DEFAULT 0;
        """,
        // 3: durable promises; settled ones until `keep_until`.
        """
        CREATE TABLE IF NOT EXISTS promises (
            promise_id TEXT PRIMARY KEY NOT NULL,
            value_type TEXT NOT NULL,
            component TEXT NOT NULL,
            limited INTEGER NOT NULL,
            consumer_id TEXT,
            created_at REAL NOT NULL,
            deadline REAL,
            retention REAL NOT NULL,
            settlement_key TEXT,
            outcome TEXT,
            body BLOB,
            settled_at REAL,
            keep_until REAL
        );
        """,
        // 4: when a claimed delivery was claimed, for operators (`InspectableSignalStore`).
        """
        ALTER TABLE deliveries ADD COLUMN claimed_at REAL;
        """,
        // 5: the time before which a kept signal is not delivered (a delayed post), for consumers that
        // register later.
        """
        ALTER TABLE signals ADD COLUMN not_before REAL;
        """,
        // 6: work queues (their consumers and deliveries are owned by a queue, not by a run: code
        // older than this would take a queue for a dead run), and the idempotency keys of posts.
        """
        CREATE TABLE IF NOT EXISTS post_keys (
            post_key TEXT PRIMARY KEY NOT NULL,
            answer TEXT NOT NULL,
            keep_until REAL NOT NULL
        );
        CREATE INDEX IF NOT EXISTS post_keys_by_time ON post_keys(keep_until);
        """,
        // 7: an owner's deliveries in the order claims take them (by id), with their due time, so a
        // claim reads the first few due rows of a long queue instead of every due row, sorted.
        """
        CREATE INDEX IF NOT EXISTS deliveries_in_order ON deliveries(owner_run, state, id, not_before);
        """,
        // 8: ordering keys (a consumer runs its deliveries of one key one at a time, in post order:
        // code older than this would run them at once).
        """
        ALTER TABLE deliveries ADD COLUMN order_key TEXT;
        CREATE INDEX IF NOT EXISTS deliveries_by_order_key ON deliveries(consumer_id, order_key, id)
            WHERE order_key IS NOT NULL;
        """,
        // 9: debounced posts (a post finds its key's waiting delivery and collapses into it: code
        // older than this would make one delivery per post).
        """
        ALTER TABLE deliveries ADD COLUMN debounce_key TEXT;
        CREATE INDEX IF NOT EXISTS deliveries_by_debounce_key ON deliveries(consumer_id, debounce_key)
            WHERE debounce_key IS NOT NULL;
        """,
    ])

    /// The schema version of the signal store in `db` (0 for an empty database).
    ///
    /// - Throws: `SignalError.notASignalStore` for a database that holds anything else,
    ///   `.newerSchema` for a signal store newer than this code.
    static func version(of db: Database, path: String) throws -> Int {
        let found = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        let application = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        let names = try String.fetchAll(
            db,
            sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name
                """)
        let isEmpty = names.isEmpty && found == 0 && application == 0
        let isUnmarkedStore =
            application == 0 && (1...version).contains(found) && Set(names).subtracting(laterTables) == tables
        guard application == applicationID || isEmpty || isUnmarkedStore else {
            throw SignalError.notASignalStore(
                path: path, found: description(tables: names, application: application, version: found))
        }
        try migration.refuseNewer(found: found, at: path)
        return found
    }

    /// What a foreign database holds, for `SignalError.notASignalStore`.
    private static func description(tables: [String], application: Int32, version: Int) -> String {
        let shown =
            tables.prefix(8).map { "'\($0)'" }.joined(separator: ", ")
            + (tables.count > 8 ? " and \(tables.count - 8) more" : "")
        let held = tables.isEmpty ? "no tables" : "table\(tables.count == 1 ? "" : "s") \(shown)"
        return
            "an SQLite database with \(held), application id \(application) (a signal store's is \(applicationID)) and user_version \(version)"
    }

    /// Brings the store in `db` to `version` and marks it, or refuses what is not a signal store or is newer.
    static func migrate(_ db: Database, path: String) throws {
        let found = try version(of: db, path: path)
        if try Int32.fetchOne(db, sql: "PRAGMA application_id") != applicationID {
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        }
        _ = try migration.migrate(
            at: path, read: { found }, apply: { step in try db.execute(sql: step) },
            record: { version in try db.execute(sql: "PRAGMA user_version = \(version)") })
    }
}
