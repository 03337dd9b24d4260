import HandoffModel

/// Accounts and their tokens: sessions and packs' device tokens.
extension StoreRepository {
    /// An account's columns, with its weekly distance goal (kept among its goals, `goal`).
    static let accountColumns = """
        account.*, (SELECT target FROM goal WHERE goal.account_id = account.id AND goal.period = 'week'
            AND goal.measure = 'distance' AND goal.sport = '') AS week_goal_mm
        """

    static func account(_ row: SQLRow) throws(SQLError) -> Account {
        try Account(
            id: row.int("id"), email: row.text("email"), username: row.text("username"),
            passwordHash: row.text("password_hash"), created: WallInstant(nanosecondsSinceEpoch: row.int("created_ns")),
            units: row.text("units"), timeZone: row.text("time_zone"),
            maximumHeartRate: row.intOrNil("max_heart_rate").map { Int($0) },
            restingHeartRate: row.intOrNil("rest_heart_rate").map { Int($0) },
            weekGoalMM: row.intOrNil("week_goal_mm"),
            audience: Self.audience(row.text("run_visibility"), row.text("map_visibility")))
    }

    /// Levels as stored; one this store does not know (a newer store's) is taken as private.
    static func audience(_ run: String, _ map: String) -> StoredRun.Audience {
        let run = RunVisibility(rawValue: run) ?? .private
        return StoredRun.Audience(run: run, map: min(run, RunVisibility(rawValue: map) ?? .private))
    }

    /// Creates an account; a taken email or username is a 409 naming which.
    func createAccount(email: String, username: String, passwordHash: String, now: WallInstant) async throws -> Account
    {
        try await write { db in
            try await Self.checkFree(db, email: email, username: username, except: 0)
            let id = try await db.one(
                """
                INSERT INTO account (email, email_key, username, username_key, password_hash, created_ns)
                VALUES (?, ?, ?, ?, ?, ?) RETURNING id
                """, email, TextRules.key(email), username, TextRules.key(username), passwordHash,
                now.nanosecondsSinceEpoch)!.int("id")
            return Account(id: id, email: email, username: username, passwordHash: passwordHash, created: now)
        }
    }

    private static func checkFree(
        _ db: any SQLSession, email: String, username: String, except id: Int64
    )
        async throws
    {
        if try await db.one("SELECT 1 AS x FROM account WHERE email_key = ? AND id != ?", TextRules.key(email), id)
            != nil
        {
            throw StoreError(
                .conflict, "email_taken", "an account with \(email) exists: sign in, or use another email")
        }
        if try await db.one(
            "SELECT 1 AS x FROM account WHERE username_key = ? AND id != ?", TextRules.key(username), id) != nil
        {
            throw StoreError(.conflict, "username_taken", "the username \(username) is taken: choose another")
        }
    }

    /// Sets who sees the person's new runs and their maps (runs stored before keep theirs).
    func setDefaultAudience(account: Int64, _ audience: StoredRun.Audience) async throws {
        try await write { db in
            try await db.query(
                "UPDATE account SET run_visibility = ?, map_visibility = ? WHERE id = ?", audience.run.rawValue,
                audience.map.rawValue, account)
        }
    }

    /// Sets the person's maximum heart rate (nil: not said).
    func setHeartRates(account: Int64, maximum: Int?, resting: Int?) async throws {
        try await write { db in
            try await db.query(
                "UPDATE account SET max_heart_rate = ?, rest_heart_rate = ? WHERE id = ?", maximum.map(Int64.init),
                resting.map(Int64.init), account)
        }
    }

    /// Sets the units and the time zone the person reads pages in.
    func setPreferences(account: Int64, units: String, timeZone: String) async throws {
        try await write { db in
            try await db.query("UPDATE account SET units = ?, time_zone = ? WHERE id = ?", units, timeZone, account)
        }
    }

    /// A one-time password reset link for `username`, valid for `lifetimeSeconds`: its token, to
    /// put in `/reset/{token}`. The operator hands it over (`handoff-store account reset-password`).
    public func issuePasswordReset(
        username: String, now: WallInstant, lifetimeSeconds: Int64 = 86_400
    ) async throws
        -> String
    {
        guard let account = try await account(username: username) else {
            throw StoreError(.notFound, "not_found", "no account is named \(username): check the spelling")
        }
        let token = AccountService.randomToken()
        try await write { db in
            try await db.query("DELETE FROM password_reset WHERE expires_ns < ?", now.nanosecondsSinceEpoch)
            try await db.query(
                "INSERT INTO password_reset (token_hash, account_id, expires_ns) VALUES (?, ?, ?)",
                AccountService.digest(token), account.id,
                now.advanced(byNanoseconds: lifetimeSeconds * nanosecondsPerSecond).nanosecondsSinceEpoch)
        }
        return token
    }

    /// The account a reset link is for, while it is unused and unexpired.
    func passwordReset(token: String, now: WallInstant) async throws -> Account? {
        try await read { db in
            try await db.one(
                """
                SELECT \(Self.accountColumns) FROM password_reset JOIN account ON account.id = password_reset.account_id
                WHERE password_reset.token_hash = ? AND password_reset.expires_ns >= ?
                """, AccountService.digest(token), now.nanosecondsSinceEpoch
            ).map(Self.account)
        }
    }

    /// Uses a reset link: sets the password hash, ends every session and pack token, and the
    /// link; false when the link is unknown, used or expired.
    func usePasswordReset(token: String, passwordHash: String, now: WallInstant) async throws -> Bool {
        try await write { db in
            guard
                let row = try await db.one(
                    "DELETE FROM password_reset WHERE token_hash = ? AND expires_ns >= ? RETURNING account_id",
                    AccountService.digest(token), now.nanosecondsSinceEpoch)
            else { return false }
            let account = try row.int("account_id")
            try await db.query("UPDATE account SET password_hash = ? WHERE id = ?", passwordHash, account)
            try await db.query("DELETE FROM device WHERE account_id = ?", account)
            try await db.query("DELETE FROM token WHERE account_id = ?", account)
            // Any other link for the account is void too: one reset, one password.
            try await db.query("DELETE FROM password_reset WHERE account_id = ?", account)
            return true
        }
    }

    /// Whether any account exists yet.
    func hasAccounts() async throws -> Bool {
        try await read { db in try await db.one("SELECT 1 AS x FROM account LIMIT 1") != nil }
    }

    /// How many runs the account has.
    func runCount(account: Int64) async throws -> Int {
        try await read { db in
            Int(try await db.one("SELECT count(*) AS n FROM run WHERE account_id = ?", account)?.int("n") ?? 0)
        }
    }

    /// Whether a group has this invite code (sign-ups by invitation).
    func inviteExists(_ code: String) async throws -> Bool {
        try await read { db in try await db.one("SELECT 1 AS x FROM team WHERE invite_code = ?", code) != nil }
    }

    func account(id: Int64) async throws -> Account? {
        try await read { db in
            try await db.one("SELECT \(Self.accountColumns) FROM account WHERE id = ?", id).map(Self.account)
        }
    }

    /// By email or username, compared by their keys (any case, any Unicode spelling).
    func account(login: String) async throws -> Account? {
        let key = TextRules.key(login)
        return try await read { db in
            try await db.one(
                "SELECT \(Self.accountColumns) FROM account WHERE email_key = ? OR username_key = ?", key, key
            ).map(
                Self.account)
        }
    }

    func account(username: String) async throws -> Account? {
        try await read { db in
            try await db.one(
                "SELECT \(Self.accountColumns) FROM account WHERE username_key = ?", TextRules.key(username)
            ).map(Self.account)
        }
    }

    func updateAccount(_ account: Account) async throws {
        try await write { db in
            try await Self.checkFree(db, email: account.email, username: account.username, except: account.id)
            try await db.query(
                """
                UPDATE account SET email = ?, email_key = ?, username = ?, username_key = ?, password_hash = ?
                WHERE id = ?
                """, account.email, TextRules.key(account.email), account.username, TextRules.key(account.username),
                account.passwordHash, account.id)
            // Each membership keeps the name key, for searching a group's members by name.
            try await db.query(
                "UPDATE member SET name_key = ? WHERE account_id = ? AND name_key <> ?",
                TextRules.key(account.username),
                account.id, TextRules.key(account.username))
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
        // Every request with a bearer token asks this: one statement, no transaction.
        let found: Credential? = try await readOne(
            """
            SELECT \(Self.accountColumns), token.scope, token.device_id, device.last_seen_ns FROM token
            JOIN account ON account.id = token.account_id
            LEFT JOIN device ON device.id = token.device_id
            WHERE token.hash = ? AND token.expires_ns > ?
            """, hash, now.nanosecondsSinceEpoch
        ).flatMap { row in
            guard let scope = TokenScope(rawValue: try row.text("scope")) else { return nil }
            return try Credential(
                account: Self.account(row), scope: scope, device: row.intOrNil("device_id"),
                lastSeen: row.intOrNil("last_seen_ns"))
        }
        if let found, let device = found.device,
            now.nanosecondsSinceEpoch - (found.lastSeen ?? 0) > 60 * nanosecondsPerSecond
        {
            do {
                try await deviceSeen(device, account: found.account.id, now: now)
            } catch let error as StoreError where error.status == .insufficientStorage {
                // A full disk refuses the mark, not the request: reads keep working, and a later
                // request marks the pack (a baton's lease has hours to spare).
            }
        }
        return found
    }

    func deleteToken(hash: String) async throws {
        try await write { db in try await db.query("DELETE FROM token WHERE hash = ?", hash) }
    }

    /// Every token of an account but `keeping`, after a password change: the other sessions end,
    /// and so do the packs (their device tokens last ten years). The packs are unlinked with their
    /// tokens, so each answers `401` on its next sync and `handoff link` links it again.
    func endTokens(account: Int64, keeping: String?) async throws {
        try await write { db in
            try await db.query("DELETE FROM device WHERE account_id = ?", account)
            try await db.query("DELETE FROM token WHERE account_id = ? AND hash != ?", account, keeping ?? "")
            // A new password voids any reset link still waiting.
            try await db.query("DELETE FROM password_reset WHERE account_id = ?", account)
        }
    }

    /// Deletes an account: it leaves each of its groups as a member who leaves does (their
    /// distance stays in the group totals as former members'), then the account, its sessions,
    /// packs and runs go.
    func deleteAccount(id: Int64, now: WallInstant) async throws {
        try await write { db in
            for team in try await db.query("SELECT team_id FROM member WHERE account_id = ?", id) {
                try await Self.removeMember(db, try team.int("team_id"), id, now: now)
            }
            try await db.query("DELETE FROM account WHERE id = ?", id)
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
