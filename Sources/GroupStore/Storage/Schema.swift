import Foundation

/// The store's tables, written once for both engines. `ID`, `INT` and `BLOB` are replaced by
/// each dialect's types; everything else is SQL both SQLite (3.35+) and PostgreSQL speak.
/// Distances are integer millimetres, so every total is an exact sum; times are nanoseconds
/// since the Unix epoch, as everywhere in Handoff.
enum Schema {
    struct Migration {
        /// SQL run on one engine or on both, in order: statements of `both` are split on `;`,
        /// a PostgreSQL-only step runs whole (it may be a `DO` block).
        enum Step {
            case both(String)
            case postgres(String)
        }

        let version: Int
        let name: String
        let steps: [Step]

        init(version: Int, name: String, steps: [Step]) {
            self.version = version
            self.name = name
            self.steps = steps
        }

        /// A migration of SQL both engines run, then `postgres`, statements PostgreSQL alone runs.
        init(version: Int, name: String, sql: String, postgres: [String] = []) {
            self.init(version: version, name: name, steps: [.both(sql)] + postgres.map(Step.postgres))
        }
    }

    static let migrations = foundation + social + training + live

    /// Accounts, packs, groups, the baton and runs (issues 1–32).
    static let foundation = [
        Migration(
            version: 1, name: "accounts, devices, groups, the baton, runs",
            sql: """
                CREATE TABLE account (
                    id ID,
                    email TEXT NOT NULL UNIQUE,
                    username TEXT NOT NULL,
                    username_key TEXT NOT NULL UNIQUE,
                    password_hash TEXT NOT NULL,
                    created_ns INT NOT NULL
                );
                CREATE TABLE device (
                    id ID,
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    created_ns INT NOT NULL,
                    last_seen_ns INT NOT NULL
                );
                CREATE INDEX device_account ON device (account_id);
                CREATE TABLE token (
                    hash TEXT PRIMARY KEY,
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    scope TEXT NOT NULL CHECK (scope IN ('session', 'device')),
                    device_id INT REFERENCES device (id) ON DELETE CASCADE,
                    created_ns INT NOT NULL,
                    expires_ns INT NOT NULL
                );
                CREATE INDEX token_account ON token (account_id);
                CREATE TABLE device_code (
                    device_hash TEXT PRIMARY KEY,
                    user_code TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    created_ns INT NOT NULL,
                    expires_ns INT NOT NULL,
                    interval_s INT NOT NULL,
                    last_poll_ns INT NOT NULL,
                    account_id INT REFERENCES account (id) ON DELETE CASCADE
                );
                CREATE TABLE team (
                    id ID,
                    name TEXT NOT NULL,
                    owner_id INT REFERENCES account (id) ON DELETE SET NULL,
                    goal_mm INT NOT NULL,
                    deadline_ns INT,
                    invite_code TEXT NOT NULL UNIQUE,
                    lease_s INT NOT NULL,
                    created_ns INT NOT NULL,
                    total_mm INT NOT NULL DEFAULT 0,
                    former_mm INT NOT NULL DEFAULT 0
                );
                CREATE TABLE member (
                    team_id INT NOT NULL REFERENCES team (id) ON DELETE CASCADE,
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    joined_ns INT NOT NULL,
                    turn INT NOT NULL,
                    distance_mm INT NOT NULL DEFAULT 0,
                    runs INT NOT NULL DEFAULT 0,
                    PRIMARY KEY (team_id, account_id)
                );
                CREATE INDEX member_account ON member (account_id);
                CREATE TABLE leg (
                    id ID,
                    team_id INT NOT NULL REFERENCES team (id) ON DELETE CASCADE,
                    account_id INT REFERENCES account (id) ON DELETE SET NULL,
                    taken_ns INT NOT NULL,
                    ended_ns INT,
                    ended_how TEXT,
                    passed_to INT REFERENCES account (id) ON DELETE SET NULL,
                    distance_mm INT NOT NULL DEFAULT 0,
                    runs INT NOT NULL DEFAULT 0
                );
                CREATE INDEX leg_team ON leg (team_id, taken_ns);
                CREATE TABLE baton (
                    team_id INT PRIMARY KEY REFERENCES team (id) ON DELETE CASCADE,
                    holder_id INT REFERENCES account (id) ON DELETE SET NULL,
                    leg_id INT REFERENCES leg (id) ON DELETE SET NULL,
                    since_ns INT,
                    expires_ns INT
                );
                CREATE TABLE run (
                    id ID,
                    uuid TEXT NOT NULL UNIQUE,
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    started_ns INT NOT NULL,
                    elapsed_ms INT NOT NULL,
                    timer_ms INT NOT NULL,
                    distance_mm INT NOT NULL,
                    sport TEXT NOT NULL,
                    format TEXT NOT NULL,
                    sha256 TEXT NOT NULL,
                    size INT NOT NULL,
                    file BLOB NOT NULL,
                    summary TEXT NOT NULL,
                    uploaded_ns INT NOT NULL
                );
                CREATE INDEX run_account ON run (account_id, started_ns);
                CREATE TABLE run_team (
                    run_id INT NOT NULL REFERENCES run (id) ON DELETE CASCADE,
                    team_id INT NOT NULL REFERENCES team (id) ON DELETE CASCADE,
                    leg_id INT REFERENCES leg (id) ON DELETE SET NULL,
                    distance_mm INT NOT NULL,
                    PRIMARY KEY (run_id, team_id)
                );
                CREATE INDEX run_team_team ON run_team (team_id);
                """),
        Migration(
            version: 2, name: "groups that pass the baton by themselves",
            sql: """
                ALTER TABLE team ADD COLUMN auto_pass INT NOT NULL DEFAULT 0
                """),
        Migration(
            version: 3, name: "password attempts counted in the database, shared by every store instance",
            sql: """
                CREATE TABLE password_attempt (
                    attempt_key TEXT NOT NULL,
                    at_ns INT NOT NULL
                );
                CREATE INDEX password_attempt_key ON password_attempt (attempt_key, at_ns);
                CREATE INDEX password_attempt_at ON password_attempt (at_ns)
                """),
        Migration(
            version: 4, name: "e-mail compared by a key that folds case and Unicode compatibility forms",
            sql: """
                ALTER TABLE account ADD COLUMN email_key TEXT NOT NULL DEFAULT '';
                UPDATE account SET email_key = email;
                CREATE UNIQUE INDEX account_email_folded ON account (email_key)
                """),
        // Listing runs read through each run's file (it sat before `summary` in the row); a file
        // is now read only when it is asked for. PostgreSQL compresses files with lz4 where the
        // server has it (a quarter of pglz's CPU at about the same size), else stores them as
        // they come. The old column's space stays as free pages (docs/group-store.md).
        Migration(
            version: 5, name: "uploaded files apart from runs",
            steps: [
                .both(
                    "CREATE TABLE run_file (run_id INT PRIMARY KEY REFERENCES run (id) ON DELETE CASCADE, file BLOB NOT NULL)"
                ),
                .postgres(
                    """
                    DO $$ BEGIN
                        EXECUTE 'ALTER TABLE run_file ALTER COLUMN file SET COMPRESSION lz4';
                    EXCEPTION WHEN OTHERS THEN
                        ALTER TABLE run_file ALTER COLUMN file SET STORAGE EXTERNAL;
                    END $$
                    """),
                .both(
                    """
                    INSERT INTO run_file (run_id, file) SELECT id, file FROM run;
                    ALTER TABLE run DROP COLUMN file
                    """),
            ]),
        // Uploads and deletes only add rows here, so uploads to one group do not wait on its
        // total's row: a read adds the pending rows to the stored totals, and a roll-up folds
        // them in (Groups/Tally.swift). No foreign keys: on PostgreSQL each would lock the
        // group's row in share mode. It starts empty, so every total stays exact.
        Migration(
            version: 6, name: "a ledger of contributions to the totals",
            sql: """
                CREATE TABLE tally (
                    id ID,
                    team_id INT NOT NULL,
                    account_id INT NOT NULL,
                    leg_id INT,
                    distance_mm INT NOT NULL,
                    runs INT NOT NULL,
                    batch INT
                );
                CREATE INDEX tally_team ON tally (team_id, account_id);
                CREATE INDEX tally_batch ON tally (batch)
                """),
        // A group's pages list its members a page at a time (Groups/Repository+Members.swift):
        // by distance, by turn, or by name start, each on an index. The name key is the account's
        // (`TextRules.key`), kept in each membership so a search stays within the group; on
        // PostgreSQL it compares bytes (COLLATE "C"), as SQLite's BINARY does, so a prefix is one
        // range of the index whatever the server's locale. Legs page on (taken, id).
        Migration(
            version: 7, name: "members by distance, turn and name; legs by time and id",
            steps: [
                .both(
                    """
                    ALTER TABLE member ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
                    UPDATE member SET name_key = (SELECT username_key FROM account WHERE account.id = member.account_id)
                    """),
                .postgres(#"ALTER TABLE member ALTER COLUMN name_key TYPE TEXT COLLATE "C""#),
                .both(
                    """
                    CREATE INDEX member_rank ON member (team_id, distance_mm DESC, account_id);
                    CREATE INDEX member_turn ON member (team_id, turn, account_id);
                    CREATE INDEX member_name ON member (team_id, name_key, account_id);
                    CREATE INDEX leg_team_taken ON leg (team_id, taken_ns, id);
                    DROP INDEX leg_team
                    """),
            ]),
        // The run list shows each run's average heart rate without reading its file. Runs stored
        // before have none (NULL), and the list says so. Each person reads pages in their units
        // and time zone (an IANA name).
        Migration(
            version: 8, name: "each run's average heart rate; each person's units and time zone",
            sql: """
                ALTER TABLE run ADD COLUMN heart_rate_avg INT;
                ALTER TABLE account ADD COLUMN units TEXT NOT NULL DEFAULT 'km';
                ALTER TABLE account ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC'
                """),
        // A forgotten password: the operator's one-time link (`handoff-store account
        // reset-password`), kept as a digest, as session tokens are.
        Migration(
            version: 9, name: "one-time password reset links",
            sql: """
                CREATE TABLE password_reset (
                    token_hash TEXT PRIMARY KEY,
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    expires_ns INT NOT NULL
                )
                """),
        // A run's page draws from facts computed once from its file at upload (`RunFacts`, JSON,
        // about a tenth of a long run's FIT file), so showing a run never reads the file again.
        // Runs stored before get theirs on their first showing; `version` says which code
        // computed them, and older ones are computed again.
        Migration(
            version: 10, name: "each run's page facts",
            sql: """
                CREATE TABLE run_facts (
                    run_id INT PRIMARY KEY REFERENCES run (id) ON DELETE CASCADE,
                    version INT NOT NULL,
                    facts BLOB NOT NULL
                )
                """),
        // A runner's maximum heart rate (`/settings`): the top of the zones on every run's page.
        // NULL until they say it; each run's own highest stands in.
        Migration(
            version: 11, name: "each person's maximum heart rate",
            sql: "ALTER TABLE account ADD COLUMN max_heart_rate INT"),
    ]

    /// The statements of a migration that `dialect` runs, in order, in its types.
    static func statements(_ migration: Migration, _ dialect: SQLDialect) -> [String] {
        migration.steps.flatMap { step -> [String] in
            switch step {
            case .both(let sql):
                sql.split(separator: ";").filter { !$0.allSatisfy(\.isWhitespace) }.map {
                    Self.sql(String($0), dialect)
                }
            case .postgres(let sql): dialect == .postgres ? [sql] : []
            }
        }
    }

    /// SQL in `dialect`'s types.
    static func sql(_ sql: String, _ dialect: SQLDialect) -> String {
        let (id, int, blob) =
            switch dialect {
            case .sqlite: ("INTEGER PRIMARY KEY", "INTEGER", "BLOB")
            case .postgres: ("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", "BIGINT", "BYTEA")
            }
        return sql.replacingOccurrences(of: #"\bID\b"#, with: id, options: .regularExpression)
            .replacingOccurrences(of: #"\bINT\b"#, with: int, options: .regularExpression)
            .replacingOccurrences(of: #"\bBLOB\b"#, with: blob, options: .regularExpression)
    }

    /// Brings the database to the newest schema (or to version `last`, for tests), one
    /// transaction per migration. On PostgreSQL an advisory lock keeps two store instances
    /// starting together from migrating twice.
    static func migrate(_ database: any SQLDatabase, upTo last: Int = .max) async throws {
        try await database.write { session in
            try await session.query("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        }
        for migration in migrations where migration.version <= last {
            try await database.write { session in
                if database.dialect == .postgres { try await session.query("SELECT pg_advisory_xact_lock(7242026)") }
                let current =
                    try await session.one("SELECT max(version) AS v FROM schema_version")?.intOrNil("v") ?? 0
                guard current < migration.version else { return }
                for statement in statements(migration, database.dialect) {
                    try await session.query(statement, [])
                }
                try await session.query("INSERT INTO schema_version (version) VALUES (?)", migration.version)
            }
        }
    }
}
