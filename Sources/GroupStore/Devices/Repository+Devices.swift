import HandoffModel

/// A pack linked to an account (RFC 8628 device flow).
public struct Device: Sendable {
    public let id: Int64
    public let name: String
    public let created: WallInstant
    public let lastSeen: WallInstant
}

/// A pending device authorization as the pack sees it while polling.
enum DevicePoll: Sendable {
    case pending(interval: Int64)
    case slowDown(interval: Int64)
    case approved(account: Int64, name: String)
}

extension StoreRepository {
    func createDeviceCode(
        deviceHash: String, userCode: String, name: String, lifetime: Int64, interval: Int64, now: WallInstant
    ) async throws {
        try await write { db in
            let t = now.nanosecondsSinceEpoch
            try await db.query("DELETE FROM device_code WHERE expires_ns <= ?", t)
            try await db.query(
                """
                INSERT INTO device_code (device_hash, user_code, name, created_ns, expires_ns, interval_s, last_poll_ns)
                VALUES (?, ?, ?, ?, ?, ?, 0)
                """, deviceHash, userCode, name, t, t + lifetime * nanosecondsPerSecond, interval)
        }
    }

    /// The pack's name behind an unexpired, unapproved user code (for the page to confirm).
    func pendingDevice(userCode: String, now: WallInstant) async throws -> String? {
        try await read { db in
            try await db.one(
                "SELECT name FROM device_code WHERE user_code = ? AND expires_ns > ? AND account_id IS NULL",
                userCode, now.nanosecondsSinceEpoch)?.text("name")
        }
    }

    /// Approves a user code for `account`; returns the pack's name.
    func approveDevice(userCode: String, account: Int64, now: WallInstant) async throws -> String {
        try await write { db in
            guard
                let row = try await db.one(
                    """
                    UPDATE device_code SET account_id = ?
                    WHERE user_code = ? AND expires_ns > ? AND account_id IS NULL RETURNING name
                    """, account, userCode, now.nanosecondsSinceEpoch)
            else {
                throw StoreError(
                    .notFound, "unknown_code",
                    "no pack is waiting with the code \(userCode): check the code the pack shows, or start linking again (codes last 15 minutes)"
                )
            }
            return try row.text("name")
        }
    }

    /// The name a pack gave when it asked for `userCode`, while the code waits for a person.
    func waitingDevice(userCode: String, now: WallInstant) async throws -> String? {
        try await read { db in
            try await db.one(
                "SELECT name FROM device_code WHERE user_code = ? AND expires_ns > ? AND account_id IS NULL",
                userCode, now.nanosecondsSinceEpoch
            )?.text("name")
        }
    }

    /// One poll by the pack. Throws `expired_token` for unknown or expired codes. An approved
    /// code is consumed here: the device and its token are made in the same transaction, so a
    /// code yields one token.
    func pollDevice(
        deviceHash: String, tokenHash: String, tokenExpires: WallInstant, now: WallInstant
    )
        async throws -> DevicePoll
    {
        try await write { db in
            let t = now.nanosecondsSinceEpoch
            guard
                let row = try await db.one(
                    "SELECT * FROM device_code WHERE device_hash = ? AND expires_ns > ?", deviceHash, t)
            else {
                throw StoreError(
                    .badRequest, "expired_token",
                    "this device code is unknown or has expired: ask for a new one (POST /v1/device/code)")
            }
            let interval = try row.int("interval_s")
            guard let account = try row.intOrNil("account_id") else {
                let early = try t - row.int("last_poll_ns") < interval * nanosecondsPerSecond
                try await db.query(
                    "UPDATE device_code SET last_poll_ns = ?, interval_s = ? WHERE device_hash = ?", t,
                    early ? interval + 5 : interval, deviceHash)
                return early ? .slowDown(interval: interval + 5) : .pending(interval: interval)
            }
            let name = try row.text("name")
            try await db.query("DELETE FROM device_code WHERE device_hash = ?", deviceHash)
            let device = try await db.one(
                "INSERT INTO device (account_id, name, created_ns, last_seen_ns) VALUES (?, ?, ?, ?) RETURNING id",
                account, name, t, t)!.int("id")
            try await db.query(
                """
                INSERT INTO token (hash, account_id, scope, device_id, created_ns, expires_ns)
                VALUES (?, ?, 'device', ?, ?, ?)
                """, tokenHash, account, device, t, tokenExpires.nanosecondsSinceEpoch)
            return .approved(account: account, name: name)
        }
    }

    func devices(account: Int64) async throws -> [Device] {
        try await read { db in
            try await db.query("SELECT * FROM device WHERE account_id = ? ORDER BY id", account).map {
                Device(
                    id: try $0.int("id"), name: try $0.text("name"),
                    created: WallInstant(nanosecondsSinceEpoch: try $0.int("created_ns")),
                    lastSeen: WallInstant(nanosecondsSinceEpoch: try $0.int("last_seen_ns")))
            }
        }
    }

    /// Unlinks a pack: its token stops working at once (the delete cascades to it).
    func revokeDevice(_ id: Int64, account: Int64) async throws {
        try await write { db in
            guard
                try await db.one("DELETE FROM device WHERE id = ? AND account_id = ? RETURNING id", id, account) != nil
            else { throw StoreError.notFound("device", id) }
        }
    }

    /// A pack made a request: it is alive, and so is the lease of any baton its runner holds.
    func deviceSeen(_ device: Int64, account: Int64, now: WallInstant) async throws {
        try await write { db in
            let t = now.nanosecondsSinceEpoch
            try await db.query("UPDATE device SET last_seen_ns = ? WHERE id = ?", t, device)
            try await db.query(
                """
                UPDATE baton SET expires_ns = ? + (SELECT lease_s FROM team WHERE team.id = baton.team_id) * 1000000000
                WHERE holder_id = ? AND expires_ns > ?
                """, t, account, t)
        }
    }
}

extension StoreError {
    /// A thing that does not exist, or that this account may not see: the same answer for both,
    /// so ids of others' things reveal nothing.
    static func notFound(_ what: String, _ id: some CustomStringConvertible) -> StoreError {
        StoreError(.notFound, "\(what)_not_found", "there is no \(what) \(id) that you can see")
    }
}
