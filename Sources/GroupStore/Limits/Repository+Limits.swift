import HandoffModel

/// Attempts counted in the database (`password_attempt`, whatever they attempt), so every store
/// instance over it counts together. On PostgreSQL a transaction lock on each key makes
/// concurrent attempts count one after another, as SQLite's single writer does.
extension StoreRepository {
    /// How many password attempts may be made, and over what time.
    struct PasswordLimits: Sendable {
        /// Wrong passwords for one account, and for one account from one address.
        let perAccount: Int
        /// Wrong passwords from one address, whatever the account.
        let perAddress: Int
        let windowSeconds: Int64
    }

    /// Counts a password attempt for `key` (an account, or a login that names none) from
    /// `address`, and says whether it may go ahead: `nil` if so, else the seconds to wait.
    ///
    /// Refused: an address over its own limit; an address that made `perAccount` attempts at
    /// this account; and, once the account has had `perAccount` attempts from anywhere, any
    /// address that has guessed at it in the window. An address that has not guessed at the
    /// account still gets through, so a stranger's guesses never lock its owner out. An attempt
    /// is counted before the password is checked, so attempts in flight count too;
    /// `passwordAccepted` takes the account's attempts back.
    func passwordAttempt(
        key: String, address: String, limits: PasswordLimits, now: WallInstant
    ) async throws
        -> Int64?
    {
        let t = now.nanosecondsSinceEpoch
        let start = t - limits.windowSeconds * nanosecondsPerSecond
        let pair = Self.pairKey(key, address)
        let addressKey = Self.addressKey(address)
        return try await write { db in
            try await lock(db, key)
            try await lock(db, addressKey)
            try await Self.sweep(db, before: start, keys: [key, pair, addressKey])
            let fromAddress = try await Self.recent(db, addressKey, since: start)
            let fromPair = try await Self.recent(db, pair, since: start)
            let overall = try await Self.recent(db, key, since: start)
            if fromAddress.count >= limits.perAddress {
                return Self.wait(fromAddress.oldest, start)
            }
            if fromPair.count >= limits.perAccount {
                return Self.wait(fromPair.oldest, start)
            }
            if overall.count >= limits.perAccount, fromPair.count > 0 {
                return Self.wait(overall.oldest, start)
            }
            for counted in [key, pair, addressKey] {
                try await db.query("INSERT INTO password_attempt (attempt_key, at_ns) VALUES (?, ?)", counted, t)
            }
            return nil
        }
    }

    /// A right password: the account's attempts (from everywhere and from this address) are
    /// taken back, and this attempt no longer counts against the address.
    func passwordAccepted(key: String, address: String, at now: WallInstant) async throws {
        try await write { db in
            try await db.query(
                "DELETE FROM password_attempt WHERE attempt_key IN (?, ?)", key, Self.pairKey(key, address))
            try await db.query(
                "DELETE FROM password_attempt WHERE attempt_key = ? AND at_ns = ?", Self.addressKey(address),
                now.nanosecondsSinceEpoch)
        }
    }

    /// Counts one attempt under `key` (sign-ups from an address, device codes, code guesses):
    /// `nil` when it may go ahead, else the seconds until the oldest of `limit` attempts in the
    /// window leaves it.
    func countAttempt(key: String, limit: Int, windowSeconds: Int64, now: WallInstant) async throws -> Int64? {
        let t = now.nanosecondsSinceEpoch
        let start = t - windowSeconds * nanosecondsPerSecond
        return try await write { db in
            try await lock(db, key)
            try await Self.sweep(db, before: start, keys: [key])
            let recent = try await Self.recent(db, key, since: start)
            if recent.count >= limit { return Self.wait(recent.oldest, start) }
            try await db.query("INSERT INTO password_attempt (attempt_key, at_ns) VALUES (?, ?)", key, t)
            return nil
        }
    }

    private func lock(_ db: any SQLSession, _ key: String) async throws {
        if database.dialect == .postgres {
            try await db.query("SELECT pg_advisory_xact_lock(7242027, hashtext(?))", key)
        }
    }

    static func pairKey(_ key: String, _ address: String) -> String { "\(key)|from:\(address)" }
    static func addressKey(_ address: String) -> String { "from:\(address)" }

    /// Forgets the keys' attempts older than the window, and anyone's older than a day (no window
    /// is longer).
    private static func sweep(_ db: any SQLSession, before start: Int64, keys: [String]) async throws {
        for key in keys {
            try await db.query("DELETE FROM password_attempt WHERE attempt_key = ? AND at_ns <= ?", key, start)
        }
        try await db.query(
            "DELETE FROM password_attempt WHERE at_ns <= ?", start - 86_400 * nanosecondsPerSecond)
    }

    private static func recent(
        _ db: any SQLSession, _ key: String, since start: Int64
    ) async throws -> (
        count: Int, oldest: Int64?
    ) {
        let row = try await db.one(
            "SELECT count(*) AS n, min(at_ns) AS oldest FROM password_attempt WHERE attempt_key = ? AND at_ns > ?",
            key, start)
        return (Int(try row?.int("n") ?? 0), try row?.intOrNil("oldest"))
    }

    private static func wait(_ oldest: Int64?, _ start: Int64) -> Int64 {
        max(1, ((oldest ?? start) - start) / nanosecondsPerSecond)
    }
}
