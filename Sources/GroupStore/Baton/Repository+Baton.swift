import HandoffModel

/// The baton: a lease held by at most one member of a group. Taking it is a compare-and-set (an
/// UPDATE that matches only a free baton), which the engines make atomic: SQLite has one writer;
/// PostgreSQL re-checks the condition on the row after waiting for a concurrent writer's lock.
extension StoreRepository {
    static func baton(_ db: any SQLSession, _ id: Int64, now: WallInstant) async throws -> Baton {
        let row = try await db.one(
            """
            SELECT baton.*, account.username FROM baton LEFT JOIN account ON account.id = baton.holder_id
            WHERE baton.team_id = ?
            """, id)
        // An expired lease reads as free even before a writer records its end.
        guard let row, let holder = try row.intOrNil("holder_id"), try row.int("expires_ns") > now.nanosecondsSinceEpoch
        else { return Baton(holderID: nil, holderName: nil, since: nil, expires: nil, legID: nil) }
        return try Baton(
            holderID: holder, holderName: row.text("username"),
            since: WallInstant(nanosecondsSinceEpoch: row.int("since_ns")),
            expires: WallInstant(nanosecondsSinceEpoch: row.int("expires_ns")), legID: row.intOrNil("leg_id"))
    }

    /// Ends `holder`'s open leg in the group and frees the baton (when they hold it).
    static func endLeg(
        _ db: any SQLSession, team: Int64, holder: Int64, at t: Int64, how: String, to: Int64?
    )
        async throws
    {
        try await db.query(
            """
            UPDATE leg SET ended_ns = ?, ended_how = ?, passed_to = ?
            WHERE team_id = ? AND account_id = ? AND ended_ns IS NULL
            """, t, how, to, team, holder)
        try await db.query(
            """
            UPDATE baton SET holder_id = NULL, leg_id = NULL, since_ns = NULL, expires_ns = NULL
            WHERE team_id = ? AND holder_id = ?
            """, team, holder)
    }

    /// Closes a lease that ran out: its leg ends when the lease did.
    static func closeExpired(_ db: any SQLSession, _ id: Int64, now: WallInstant) async throws {
        guard
            let row = try await db.one(
                """
                SELECT holder_id, expires_ns FROM baton
                WHERE team_id = ? AND holder_id IS NOT NULL AND expires_ns <= ?
                """, id, now.nanosecondsSinceEpoch)
        else { return }
        let holder = try row.int("holder_id")
        try await endLeg(db, team: id, holder: holder, at: try row.int("expires_ns"), how: "expired", to: nil)
        try await recordEvent(db, team: id, kind: "baton_expired", now: now, from: holder)
    }

    /// Gives the (free) baton to `account`: a new leg starts now.
    static func hand(
        _ db: any SQLSession, _ group: Group, to account: Int64, now: WallInstant
    )
        async throws -> Bool
    {
        let t = now.nanosecondsSinceEpoch
        guard
            try await db.one(
                """
                UPDATE baton SET holder_id = ?, since_ns = ?, expires_ns = ?
                WHERE team_id = ? AND holder_id IS NULL RETURNING team_id
                """, account, t, t + group.leaseSeconds * nanosecondsPerSecond, group.id) != nil
        else { return false }
        let leg = try await db.one(
            "INSERT INTO leg (team_id, account_id, taken_ns) VALUES (?, ?, ?) RETURNING id", group.id, account, t)!
        try await db.query("UPDATE baton SET leg_id = ? WHERE team_id = ?", try leg.int("id"), group.id)
        return true
    }

    static func held(_ baton: Baton) -> StoreError {
        StoreError(
            .conflict, "baton_held",
            "\(baton.holderName ?? "another member") has held the baton since \(baton.since.map { CivilTime($0).iso8601() } ?? "now"): wait for them to pass it"
        )
    }

    /// A test hook, nil in production: runs inside a take's transaction, with its session, after
    /// the take read the baton and before it writes, so a test can put a rival's take exactly
    /// there (which SQLite's one writer never lets two transactions do by themselves).
    @TaskLocal static var afterTakeRead: (@Sendable (any SQLSession) async throws -> Void)?

    /// Takes the baton when it is free (or its lease ran out). Taking a baton you hold is not an
    /// error: it renews the lease.
    func takeBaton(_ id: Int64, account: Int64, now: WallInstant) async throws -> Baton {
        try await write { db in
            let group = try await Self.memberGroup(db, id, account)
            try await Self.closeExpired(db, id, now: now)
            let current = try await Self.baton(db, id, now: now)
            try await Self.afterTakeRead?(db)
            if current.holderID == account { return try await Self.renew(db, group, account, now: now) }
            guard try await Self.hand(db, group, to: account, now: now) else {
                throw Self.held(try await Self.baton(db, id, now: now))
            }
            try await Self.recordEvent(db, team: id, kind: "baton_taken", now: now)
            return try await Self.baton(db, id, now: now)
        }
    }

    private static func renew(
        _ db: any SQLSession, _ group: Group, _ account: Int64, now: WallInstant
    )
        async throws -> Baton
    {
        try await db.query(
            "UPDATE baton SET expires_ns = ? WHERE team_id = ? AND holder_id = ?",
            now.nanosecondsSinceEpoch + group.leaseSeconds * nanosecondsPerSecond, group.id, account)
        return try await baton(db, group.id, now: now)
    }

    /// The holder's sign of life without a pack (the web or a session): the lease restarts.
    func renewBaton(_ id: Int64, account: Int64, now: WallInstant) async throws -> Baton {
        try await write { db in
            let group = try await Self.memberGroup(db, id, account)
            try await Self.closeExpired(db, id, now: now)
            try await Self.requireHolder(db, id, account, now: now)
            return try await Self.renew(db, group, account, now: now)
        }
    }

    private static func requireHolder(
        _ db: any SQLSession, _ id: Int64, _ account: Int64, now: WallInstant
    )
        async throws
    {
        let baton = try await baton(db, id, now: now)
        guard baton.holderID == account else {
            if baton.holderID == nil {
                throw StoreError(.conflict, "baton_free", "nobody holds the baton: take it first")
            }
            throw StoreError(
                .conflict, "not_holder",
                "\(baton.holderName ?? "another member") holds the baton, not you: only the holder passes or releases it"
            )
        }
    }

    /// Hands the baton to `username`, or to the next member in the rotation after the holder.
    func passBaton(_ id: Int64, account: Int64, to username: String?, now: WallInstant) async throws -> Baton {
        try await write { db in
            let group = try await Self.memberGroup(db, id, account)
            try await Self.closeExpired(db, id, now: now)
            try await Self.requireHolder(db, id, account, now: now)
            let target: Int64
            if let username {
                guard let named = try await Self.member(db, team: id, named: username) else {
                    throw StoreError(
                        .unprocessableContent, "not_a_member",
                        "\(username) is not in this group: pass to a member, or leave `to` out for the next in the rotation"
                    )
                }
                guard named != account else {
                    throw StoreError(.unprocessableContent, "pass_to_self", "you hold the baton already")
                }
                target = named
            } else {
                guard let next = try await Self.nextInRotation(db, team: id, after: account) else {
                    throw StoreError(
                        .unprocessableContent, "nobody_to_pass_to",
                        "you are the group's only member: invite someone with the group's invite code first")
                }
                target = next
            }
            try await Self.endLeg(
                db, team: id, holder: account, at: now.nanosecondsSinceEpoch, how: "passed", to: target)
            _ = try await Self.hand(db, group, to: target, now: now)
            try await Self.recordEvent(db, team: id, kind: "baton_passed", now: now, from: account)
            return try await Self.baton(db, id, now: now)
        }
    }

    func releaseBaton(_ id: Int64, account: Int64, now: WallInstant) async throws {
        try await write { db in
            _ = try await Self.memberGroup(db, id, account)
            try await Self.closeExpired(db, id, now: now)
            try await Self.requireHolder(db, id, account, now: now)
            try await Self.endLeg(
                db, team: id, holder: account, at: now.nanosecondsSinceEpoch, how: "released", to: nil)
            try await Self.recordEvent(db, team: id, kind: "baton_released", now: now, from: account)
        }
    }

    func baton(_ id: Int64, account: Int64, now: WallInstant) async throws -> (Baton, Page<Leg>) {
        try await read { db in
            _ = try await Self.memberGroup(db, id, account)
            return (
                try await Self.baton(db, id, now: now),
                try await Self.legs(db, id, after: nil, limit: Self.legLimits.standard)
            )
        }
    }
}
