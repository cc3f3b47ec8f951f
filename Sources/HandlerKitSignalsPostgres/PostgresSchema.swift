// Compiled with the package trait `PostgreSQL` only (its dependency postgres-nio is fetched and built only then).
#if PostgreSQL
@_spi(SignalStoreDriver) import HandlerKitSignals
import PostgresNIO

/// The PostgreSQL store's schema, versioned in the table `schema_version` of the store's own schema
/// (namespace). The core's `SchemaMigration` runs the steps from the version found on, in one
/// transaction under a transaction-level advisory lock, so processes opening a new or older store at
/// the same time migrate it once; a store at a newer version is refused (`SignalError.newerSchema`),
/// untouched.
///
/// Times are seconds since 1970 (`double precision`), as the SQLite store keeps them, except a run's
/// `heartbeat_at`, which is the server's clock (leases are judged by one clock).
enum PostgresSchema {
    /// The schema version this code writes and reads.
    static var version: Int { migration.version }

    /// The tables of a signal store; a schema that holds any other table is not a signal store.
    static let tables: Set<String> = [
        "schema_version", "runs", "consumers", "signals", "deliveries", "delivery_bodies", "completions", "posts",
        "promises", "operations", "post_keys",
    ]

    /// The steps: `steps[n]` migrates version n to n + 1. They name no schema: every connection's
    /// `search_path` is the store's schema (`PostgresConnections.connect`).
    static let migration = SchemaMigration<String>(steps: [
        """
        CREATE SEQUENCE run_lock_keys AS integer MINVALUE 1 CYCLE;
        CREATE TABLE runs (
            run_id text PRIMARY KEY,
            component text NOT NULL,
            host text NOT NULL,
            pid integer NOT NULL,
            -- The run's session-level advisory lock is (hashtext(<namespace>), lock_key).
            lock_key integer NOT NULL,
            backend_pid integer NOT NULL,
            started_at double precision NOT NULL,
            heartbeat_at timestamptz NOT NULL DEFAULT clock_timestamp()
        );
        CREATE INDEX runs_by_component ON runs (component);
        CREATE TABLE consumers (
            consumer_id text PRIMARY KEY,
            signal_id text NOT NULL,
            component text NOT NULL,
            run_id text NOT NULL,
            lifetime text NOT NULL,
            mode text NOT NULL,
            handler bytea NOT NULL,
            handler_id text NOT NULL,
            delivered integer NOT NULL DEFAULT 0,
            created_at double precision NOT NULL
        );
        CREATE INDEX consumers_by_signal ON consumers (signal_id);
        CREATE INDEX consumers_by_run ON consumers (run_id);
        CREATE INDEX consumers_by_component ON consumers (component);
        CREATE TABLE signals (
            signal_id text PRIMARY KEY,
            revision integer NOT NULL,
            -- The latest revision's payload while the signal is kept for late consumers (else empty).
            payload bytea NOT NULL,
            posted_at double precision NOT NULL,
            keep_until double precision
        );
        CREATE TABLE deliveries (
            id bigserial PRIMARY KEY,
            delivery_key text NOT NULL UNIQUE,
            consumer_id text NOT NULL,
            signal_id text NOT NULL,
            revision integer NOT NULL,
            component text NOT NULL,
            owner_run text NOT NULL,
            lifetime text NOT NULL,
            handler_id text NOT NULL,
            state text NOT NULL,
            claimed_by text,
            attempt integer NOT NULL DEFAULT 0,
            not_before double precision NOT NULL,
            last_error text,
            created_at double precision NOT NULL
        );
        CREATE INDEX deliveries_by_owner ON deliveries (owner_run, state, not_before);
        CREATE INDEX deliveries_by_consumer ON deliveries (consumer_id);
        CREATE INDEX deliveries_by_component ON deliveries (component, state);
        -- The large parts of a delivery, apart: claiming and releasing rewrite only the small row above.
        CREATE TABLE delivery_bodies (
            delivery_id bigint PRIMARY KEY,
            handler bytea NOT NULL,
            payload bytea NOT NULL
        );
        CREATE TABLE completions (
            delivery_key text NOT NULL,
            consumer_id text NOT NULL,
            signal_id text NOT NULL,
            revision integer NOT NULL,
            run_id text NOT NULL,
            attempt integer NOT NULL,
            completed_at double precision NOT NULL
        );
        CREATE INDEX completions_by_key ON completions (delivery_key);
        CREATE INDEX completions_by_time ON completions (completed_at);
        """,
        // 2: each post's id (made by the posting process before sending) and result, so a post whose
        // connection was lost is tried again without being applied twice; kept for a few minutes.
        """
        CREATE TABLE posts (
            post_id text PRIMARY KEY,
            signal_id text NOT NULL,
            revision integer NOT NULL,
            deliveries integer NOT NULL,
            posted_at double precision NOT NULL
        );
        CREATE INDEX posts_by_time ON posts (posted_at);
        """,
        // 3: whether a claimed delivery's handler was started (`SignalStore.start`), and whether its
        // previous attempt was started and never settled (its process died).
        """
        ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS started integer NOT NULL DEFAULT 0;
        ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS crashed integer NOT NULL DEFAULT 0;
        """,
        // 4: durable promises; settled ones until `keep_until`.
        """
        CREATE TABLE IF NOT EXISTS promises (
            promise_id text PRIMARY KEY,
            value_type text NOT NULL,
            component text NOT NULL,
            limited integer NOT NULL,
            consumer_id text,
            created_at double precision NOT NULL,
            deadline double precision,
            retention double precision NOT NULL,
            settlement_key text,
            outcome text,
            body bytea,
            settled_at double precision,
            keep_until double precision
        );
        """,
        // 5: when a claimed delivery was claimed, for operators (`InspectableSignalStore`).
        """
        ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS claimed_at double precision;
        """,
        // 6: a run's deliveries in posting order, so a claim reads its batch in that order and stops
        // there; ordered by due time (`deliveries_by_owner`), it read and sorted every due delivery of
        // the run, a few milliseconds per claim with thousands waiting.
        """
        CREATE INDEX IF NOT EXISTS deliveries_in_order ON deliveries (owner_run, state, id);
        """,
        // 7: the id and answer of each write that a try after a lost connection may repeat (a post, a
        // plan, a promise), recorded in the write's transaction: the try returns the recorded answer
        // instead of applying the write again. They replace the posts' ids of version 2.
        """
        CREATE TABLE IF NOT EXISTS operations (
            operation_id text PRIMARY KEY,
            answer text NOT NULL,
            done_at double precision NOT NULL
        );
        CREATE INDEX IF NOT EXISTS operations_by_time ON operations (done_at);
        DROP TABLE IF EXISTS posts;
        """,
        // 8: the time before which a kept signal is not delivered (a delayed post), for consumers that
        // register later.
        """
        ALTER TABLE signals ADD COLUMN IF NOT EXISTS not_before double precision;
        """,
        // 9: work queues (their consumers and deliveries are owned by a queue, not by a run: code
        // older than this would take a queue for a dead run), and the idempotency keys of posts.
        """
        CREATE TABLE IF NOT EXISTS post_keys (
            post_key text PRIMARY KEY,
            answer text NOT NULL,
            keep_until double precision NOT NULL
        );
        CREATE INDEX IF NOT EXISTS post_keys_by_time ON post_keys (keep_until);
        """,
        // 10: ordering keys (a consumer runs its deliveries of one key one at a time, in post order:
        // code older than this would run them at once).
        """
        ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS order_key text;
        CREATE INDEX IF NOT EXISTS deliveries_by_order_key ON deliveries (consumer_id, order_key, id)
            WHERE order_key IS NOT NULL;
        """,
        // 11: debounced posts (a post finds its key's waiting delivery and collapses into it: code
        // older than this would make one delivery per post).
        """
        ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS debounce_key text;
        CREATE INDEX IF NOT EXISTS deliveries_by_debounce_key ON deliveries (consumer_id, debounce_key)
            WHERE debounce_key IS NOT NULL;
        """,
    ])

    /// Brings the store to `version` (creating its schema when missing), or refuses a newer one or a
    /// schema that holds other tables. Runs inside the caller's transaction, on a connection whose
    /// `search_path` is `schema`.
    static func migrate(
        _ connection: PostgresConnection, schema: String, namespace: String, location: String,
        logger: Logger
    ) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(namespace)), 0)", logger: logger)
        try await connection.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: schema)", logger: logger)
        var existing: [String] = []
        for try await name in try await connection.query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = \(schema) ORDER BY tablename", logger: logger
        ).decode(String.self) { existing.append(name) }
        if !existing.isEmpty, !Set(existing).isSubset(of: tables) || !existing.contains("schema_version") {
            let foreign = existing.filter { !tables.contains($0) }
            let shown = (foreign.isEmpty ? existing : foreign).prefix(8).map { "'\($0)'" }.joined(separator: ", ")
            throw SignalError.notASignalStore(
                path: location,
                found:
                    "a schema with \(foreign.isEmpty ? "tables" : "other tables") \(shown)\(foreign.count > 8 ? " and more" : "") and no signal store's schema_version"
            )
        }
        try await connection.query(
            "CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)", logger: logger)
        let migrated = try await migration.migrate(
            at: location,
            read: {
                var found = 0
                for try await stored in try await connection.query(
                    "SELECT max(version) FROM schema_version", logger: logger
                ).decode(Int?.self) {
                    found = stored ?? 0
                }
                return found
            },
            apply: { step in
                for statement in step.components(separatedBy: ";\n")
                where !statement.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            },
            record: { version in
                try await connection.query("DELETE FROM schema_version", logger: logger)
                try await connection.query("INSERT INTO schema_version (version) VALUES (\(version))", logger: logger)
            })
        guard let found = migrated else { return }
        logger.info(
            "schema migrated",
            metadata: [
                "handlerkit.schema_from": .stringConvertible(found),
                "handlerkit.schema_to": .stringConvertible(version),
            ])
    }
}
#endif
