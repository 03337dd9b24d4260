import HandoffModel

/// The store's data, over either engine (`SQLiteDatabase`, the embedded default, or
/// `PostgresDatabase`). Every query is written once, in SQL both speak; each operation is one
/// transaction, so a run and the totals it changes commit together or not at all.
public struct StoreRepository: Sendable {
    public let database: any SQLDatabase

    /// Opens the repository, bringing the schema up to date.
    public init(_ database: any SQLDatabase) async throws {
        self.database = database
        try await Schema.migrate(database)
    }

    @discardableResult
    func write<T: Sendable>(_ body: @Sendable (any SQLSession) async throws -> T) async throws -> T {
        do {
            return try await database.write(body)
        } catch SQLError.uniqueViolation(let message) {
            // Two writers raced for the same unique row (PostgreSQL, read committed): the loser
            // sees the winner's row as a conflict.
            throw StoreError(.conflict, "conflict", "someone else changed this at the same moment: \(message)")
        }
    }

    func read<T: Sendable>(_ body: @Sendable (any SQLSession) async throws -> T) async throws -> T {
        try await database.read(body)
    }
}

// MARK: - Accounts and tokens

extension StoreRepository {
    static func account(_ row: SQLRow) -> Account {
        Account(
            id: row.int("id"), email: row.text("email"), username: row.text("username"),
            passwordHash: row.text("password_hash"), created: WallInstant(nanosecondsSinceEpoch: row.int("created_ns")))
    }

    /// Creates an account; a taken email or username is a 409 naming which.
    func createAccount(email: String, username: String, passwordHash: String, now: WallInstant) async throws -> Account
    {
        try await write { db in
            try await Self.checkFree(db, email: email, username: username, except: 0)
            let id = try await db.one(
                """
                INSERT INTO account (email, username, username_key, password_hash, created_ns)
                VALUES (?, ?, ?, ?, ?) RETURNING id
                """, email, username, username.lowercased(), passwordHash, now.nanosecondsSinceEpoch)!.int("id")
            return Account(id: id, email: email, username: username, passwordHash: passwordHash, created: now)
        }
    }

    private static func checkFree(
        _ db: any SQLSession, email: String, username: String, except id: Int64
    )
        async throws
    {
        if try await db.one("SELECT 1 AS x FROM account WHERE email = ? AND id != ?", email, id) != nil {
            throw StoreError(
                .conflict, "email_taken", "an account with \(email) exists: sign in, or use another email")
        }
        if try await db.one("SELECT 1 AS x FROM account WHERE username_key = ? AND id != ?", username.lowercased(), id)
            != nil
        {
            throw StoreError(.conflict, "username_taken", "the username \(username) is taken: choose another")
        }
    }

    func account(id: Int64) async throws -> Account? {
        try await read { db in try await db.one("SELECT * FROM account WHERE id = ?", id).map(Self.account) }
    }

    /// By email (any case) or username (any case).
    func account(login: String) async throws -> Account? {
        try await read { db in
            try await db.one(
                "SELECT * FROM account WHERE email = ? OR username_key = ?", login.lowercased(), login.lowercased()
            ).map(Self.account)
        }
    }

    func account(username: String) async throws -> Account? {
        try await read { db in
            try await db.one("SELECT * FROM account WHERE username_key = ?", username.lowercased()).map(Self.account)
        }
    }

    func updateAccount(_ account: Account) async throws {
        try await write { db in
            try await Self.checkFree(db, email: account.email, username: account.username, except: account.id)
            try await db.query(
                "UPDATE account SET email = ?, username = ?, username_key = ?, password_hash = ? WHERE id = ?",
                account.email, account.username, account.username.lowercased(), account.passwordHash, account.id)
        }
    }

    func createToken(
        hash: String, account: Int64, scope: TokenScope, device: Int64? = nil, expires: WallInstant, now: WallInstant
    ) async throws {
        try await write { db in
            try await db.query(
                """
                INSERT INTO token (hash, account_id, scope, device_id, created_ns, expires_ns)
                VALUES (?, ?, ?, ?, ?, ?)
                """, hash, account, scope.rawValue, device, now.nanosecondsSinceEpoch, expires.nanosecondsSinceEpoch)
        }
    }

    /// The account, scope and device of an unexpired token. A device token marks its pack as
    /// seen (at most once a minute), which keeps a baton it holds from expiring.
    func token(hash: String, now: WallInstant) async throws -> Credential? {
        let found = try await read { db -> Credential? in
            guard
                let row = try await db.one(
                    """
                    SELECT account.*, token.scope, token.device_id, device.last_seen_ns FROM token
                    JOIN account ON account.id = token.account_id
                    LEFT JOIN device ON device.id = token.device_id
                    WHERE token.hash = ? AND token.expires_ns > ?
                    """, hash, now.nanosecondsSinceEpoch),
                let scope = TokenScope(rawValue: row.text("scope"))
            else { return nil }
            return Credential(
                account: Self.account(row), scope: scope, device: row.optionalInt("device_id"),
                lastSeen: row.optionalInt("last_seen_ns"))
        }
        if let found, let device = found.device,
            now.nanosecondsSinceEpoch - (found.lastSeen ?? 0) > 60 * nanosecondsPerSecond
        {
            try await deviceSeen(device, account: found.account.id, now: now)
        }
        return found
    }

    /// Counts a password attempt for `key` (an account, or a login that names none) and says
    /// whether it may go ahead: `nil` if so, else the seconds until the oldest attempt in the
    /// window leaves it. An attempt is counted before the password is checked, so attempts in
    /// flight count too; `passwordAccepted` takes a key's attempts back. On PostgreSQL a
    /// transaction lock on the key makes concurrent attempts count one after another, as
    /// SQLite's single writer does.
    func passwordAttempt(key: String, limit: Int, window seconds: Int64, now: WallInstant) async throws -> Int64? {
        let t = now.nanosecondsSinceEpoch
        let start = t - seconds * nanosecondsPerSecond
        let dialect = database.dialect
        return try await write { db in
            if dialect == .postgres { try await db.query("SELECT pg_advisory_xact_lock(7242027, hashtext(?))", key) }
            try await db.query("DELETE FROM password_attempt WHERE at_ns <= ?", start)
            let recent = try await db.one(
                "SELECT count(*) AS n, min(at_ns) AS oldest FROM password_attempt WHERE attempt_key = ? AND at_ns > ?",
                key, start)
            if let recent, recent.int("n") >= limit, let oldest = recent.optionalInt("oldest") {
                return max(1, (oldest - start) / nanosecondsPerSecond)
            }
            try await db.query("INSERT INTO password_attempt (attempt_key, at_ns) VALUES (?, ?)", key, t)
            return nil
        }
    }

    func passwordAccepted(key: String) async throws {
        try await write { db in try await db.query("DELETE FROM password_attempt WHERE attempt_key = ?", key) }
    }

    func deleteToken(hash: String) async throws {
        try await write { db in try await db.query("DELETE FROM token WHERE hash = ?", hash) }
    }

    /// Every session of an account but `keeping` (after a password change other sessions end;
    /// packs keep their device tokens).
    func deleteSessions(account: Int64, keeping: String?) async throws {
        try await write { db in
            try await db.query(
                "DELETE FROM token WHERE account_id = ? AND scope = 'session' AND hash != ?", account, keeping ?? "")
        }
    }
}

/// Who a bearer token speaks for.
public struct Credential: Sendable {
    public let account: Account
    public let scope: TokenScope
    /// The pack, for a device token.
    public let device: Int64?
    let lastSeen: Int64?
}
