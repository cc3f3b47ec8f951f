import GRDB

/// The SQLite store's schema, versioned in `PRAGMA user_version`. Each step migrates from the version
/// before it; they run in one `BEGIN IMMEDIATE` transaction, so processes opening a new or older
/// store at the same time migrate it once. A store of a newer version is refused, untouched.
enum SQLiteSchema {
    /// The schema version this code writes and reads.
    static let version = 1

    /// `steps[n]` migrates version n to n + 1.
    static let steps: [String] = [
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
    ]

    /// Brings the store in `db` to `version`, or refuses a newer one.
    static func migrate(_ db: Database, path: String) throws {
        let found = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        if found > version { throw SignalError.newerSchema(path: path, found: found, supported: version) }
        guard found < version else { return }
        for step in steps[found...] { try db.execute(sql: step) }
        try db.execute(sql: "PRAGMA user_version = \(version)")
    }
}
