// The server schema: numbered SQL migrations that the package ships and applies (docs/SYNC.md,
// Server schema). Every table lives in the `cadmium_sync` schema of the database the URL names.
//
// Invariants:
//  SS1. Migrations are applied in number order, each once, each in one transaction together with
//       its row in `cadmium_sync.migrations`, under a transaction-scoped advisory lock, so that
//       replicas starting at once neither apply one twice nor see half of one.
//  SS2. A migration, once shipped, never changes: a change to the schema is a new migration.
//  SS3. A server whose `migrations` table names a number this build does not know was migrated
//       by a newer build: the engine refuses it (`serverError`), it never writes to it.
//  SS4. `scopes.seq` is the last change number of the scope. A push takes the scope's row lock
//       (`FOR UPDATE`) before it writes and stamps everything it changes with `seq + 1`, so change
//       numbers are handed out in commit order, and a pull that reads `seq` and every row with a
//       higher number than its cursor in one snapshot misses nothing.

/// One migration of the server schema.
struct ServerMigration: Sendable {
    let number: Int
    let name: String
    /// The statements, run in order in one transaction.
    let statements: [String]
}

/// The migrations this build ships, oldest first (SS2: append only).
enum ServerSchema {
    /// The advisory lock key that serialises migrations (SS1): "cdsync" in ASCII.
    static let lockKey: Int64 = 0x63_64_73_79_6E_63

    static let bootstrap = [
        "CREATE SCHEMA IF NOT EXISTS cadmium_sync",
        """
        CREATE TABLE IF NOT EXISTS cadmium_sync.migrations (
            number integer PRIMARY KEY,
            name text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now())
        """,
    ]

    static let migrations: [ServerMigration] = [
        ServerMigration(
            number: 1, name: "scopes, replicas, objects, properties, conflicts",
            statements: [
                // One row per scope: its change counter (SS4), its epoch (a new UUID when the
                // scope is created: a replica whose cursor names another epoch pulls from 0), and
                // the lowest model version it accepts pushes from.
                """
                CREATE TABLE cadmium_sync.scopes (
                    scope text PRIMARY KEY,
                    seq bigint NOT NULL DEFAULT 0,
                    epoch uuid NOT NULL,
                    min_model_version integer NOT NULL DEFAULT 0)
                """,
                // One row per replica: the last local transaction of it the server applied (the
                // compare-and-set of a push), as the replica's history ID, transaction number and
                // that transaction's timestamp in microseconds (a fingerprint); and the change
                // number it last pulled up to (a replica whose cursor is past it pulls from 0: the
                // server was restored from an older backup).
                """
                CREATE TABLE cadmium_sync.replicas (
                    scope text NOT NULL REFERENCES cadmium_sync.scopes(scope),
                    replica uuid NOT NULL,
                    history_id uuid,
                    acked bigint NOT NULL DEFAULT 0,
                    acked_stamp bigint NOT NULL DEFAULT 0,
                    batches bigint NOT NULL DEFAULT 0,
                    pulled bigint NOT NULL DEFAULT 0,
                    model_version integer NOT NULL DEFAULT 0,
                    last_push timestamptz,
                    PRIMARY KEY (scope, replica))
                """,
                // One row per object ever synced: a deleted one stays as a tombstone (delete wins
                // over edits stamped before `delete_hlc`).
                """
                CREATE TABLE cadmium_sync.objects (
                    scope text NOT NULL REFERENCES cadmium_sync.scopes(scope),
                    gid uuid NOT NULL,
                    entity text NOT NULL,
                    deleted boolean NOT NULL DEFAULT false,
                    delete_hlc bigint,
                    seq bigint NOT NULL,
                    PRIMARY KEY (scope, gid))
                """,
                "CREATE INDEX objects_by_seq ON cadmium_sync.objects (scope, seq)",
                // One row per property of a live object: its value (docs/SYNC.md, Values), the
                // hybrid-clock stamp and replica of the edit that wrote it, and its change number.
                """
                CREATE TABLE cadmium_sync.properties (
                    scope text NOT NULL,
                    gid uuid NOT NULL,
                    name text NOT NULL,
                    value jsonb NOT NULL,
                    hlc bigint NOT NULL,
                    replica uuid NOT NULL,
                    seq bigint NOT NULL,
                    PRIMARY KEY (scope, gid, name),
                    FOREIGN KEY (scope, gid) REFERENCES cadmium_sync.objects (scope, gid) ON DELETE CASCADE)
                """,
                // Every edit a policy decided against, for the conflict rate and for people.
                """
                CREATE TABLE cadmium_sync.conflicts (
                    id bigserial PRIMARY KEY,
                    scope text NOT NULL,
                    gid uuid NOT NULL,
                    name text,
                    kind text NOT NULL,
                    loser_replica uuid NOT NULL,
                    loser_hlc bigint NOT NULL,
                    seq bigint NOT NULL,
                    at timestamptz NOT NULL DEFAULT now())
                """,
            ]),
        ServerMigration(
            number: 2, name: "who created and who deleted each object",
            statements: [
                // The last create of an object (the replica and its change number), the change
                // number of the last create by any other replica, and the delete that made a
                // tombstone (its replica, and the change number that replica had pulled up to): a
                // create and a delete neither had seen are concurrent, and the create wins
                // (PR1–PR3 of PushResolution.swift). NULL on rows from before.
                """
                ALTER TABLE cadmium_sync.objects
                    ADD COLUMN created_replica uuid,
                    ADD COLUMN created_seq bigint,
                    ADD COLUMN other_created_seq bigint,
                    ADD COLUMN delete_replica uuid,
                    ADD COLUMN delete_seen bigint
                """
            ]),
    ]
}
