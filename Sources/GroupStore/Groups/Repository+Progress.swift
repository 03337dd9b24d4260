import HandoffModel

/// What the group page and `GET /v1/groups/{id}/progress` show: the group, its first page of
/// members by distance, the viewer's own place, the baton and the latest legs. Its size does not
/// grow with the group's.
public struct Progress: Sendable {
    public let group: Group
    /// The owner's username; nil once the owner's account is gone.
    public let ownerName: String?
    /// The first page of members by distance, exact, each with their place.
    let top: Page<Member>
    /// The viewer's row with their exact place; nil without a viewer.
    public let me: Member?
    public let memberCount: Int64
    public let baton: Baton
    /// The latest legs, newest first.
    let legs: Page<Leg>

    public var members: [Member] { top.rows }
}

extension StoreRepository {
    /// Legs a page: 20 unless asked, at most 100.
    static let legLimits = (standard: 20, most: 100)

    /// The group's progress for `account` (who must be a member), or for nobody in particular
    /// (`account` nil: no membership check, no `me`).
    func progress(
        _ id: Int64, account: Int64?, members limit: Int = memberLimits.standard, legs: Int = legLimits.standard,
        now: WallInstant
    ) async throws -> Progress {
        try await read { db in
            // The group with its owner's name, and the membership check when there is a viewer:
            // one statement (each is a round trip on PostgreSQL).
            let membership = account == nil ? "" : " JOIN member ON member.team_id = team.id AND member.account_id = ?"
            guard
                let row = try await db.query(
                    """
                    SELECT \(Self.groupColumns), owner.username AS owner_name FROM team\(membership)
                    LEFT JOIN account owner ON owner.id = team.owner_id WHERE team.id = ?
                    """, (account.map { [$0.sqlValue] } ?? []) + [id.sqlValue]
                ).first
            else { throw StoreError.notFound("group", id) }
            let group = try Group(row)
            let owner = try row.textOrNil("owner_name")
            let week = weekStart(now)
            let pending = try await Self.pendingMembers(db, team: id, week: week)
            let top = try await Self.byDistance(db, team: id, after: nil, limit: limit, week: week, pending: pending)
            let (me, count) =
                if let account {
                    try await Self.place(db, team: id, account: account, week: week, pending: pending)
                } else {
                    (nil as Member?, try await Self.memberCount(db, team: id))
                }
            return Progress(
                group: group, ownerName: owner, top: top, me: me, memberCount: count,
                baton: try await Self.baton(db, id, now: now),
                legs: try await Self.legs(db, id, after: nil, limit: legs))
        }
    }

    /// A leg's columns, its distance and runs exact (stored + pending).
    static let legColumns = """
        SELECT leg.*, a.username, b.username AS passed_to_name,
            leg.distance_mm + CAST(coalesce((SELECT sum(tally.distance_mm) FROM tally
                WHERE tally.team_id = leg.team_id AND tally.leg_id = leg.id), 0) AS BIGINT) AS distance_now_mm,
            leg.runs + CAST(coalesce((SELECT sum(tally.runs) FROM tally
                WHERE tally.team_id = leg.team_id AND tally.leg_id = leg.id), 0) AS BIGINT) AS runs_now
        FROM leg
        LEFT JOIN account a ON a.id = leg.account_id
        LEFT JOIN account b ON b.id = leg.passed_to
        """

    /// A page of group `id`'s legs, newest first, after `cursor`: on index `leg_team_taken`, those
    /// taken at the cursor's time with a smaller id, then those taken before.
    static func legs(_ db: any SQLSession, _ id: Int64, after cursor: PageCursor?, limit: Int) async throws -> Page<Leg>
    {
        var rows: [Leg]
        if case .leg(let taken, let leg) = cursor {
            rows = try await db.query(
                legColumns + "\nWHERE leg.team_id = ? AND leg.taken_ns = ? AND leg.id < ? ORDER BY leg.id DESC LIMIT ?",
                id, taken, leg, limit + 1
            ).map(Leg.init)
            if rows.count <= limit {
                rows += try await db.query(
                    legColumns
                        + "\nWHERE leg.team_id = ? AND leg.taken_ns < ? ORDER BY leg.taken_ns DESC, leg.id DESC LIMIT ?",
                    id, taken, limit + 1 - rows.count
                ).map(Leg.init)
            }
        } else {
            rows = try await db.query(
                legColumns + "\nWHERE leg.team_id = ? ORDER BY leg.taken_ns DESC, leg.id DESC LIMIT ?", id, limit + 1
            ).map(Leg.init)
        }
        let last = limit > 0 && rows.count > limit ? rows[limit - 1] : nil
        return Page(
            rows: Array(rows.prefix(limit)), next: last.map { .leg(taken: $0.taken.nanosecondsSinceEpoch, id: $0.id) })
    }

    /// A page of a group's legs for a member of it.
    func legs(_ id: Int64, account: Int64, after cursor: PageCursor?, limit: Int) async throws -> Page<Leg> {
        try await read { db in
            _ = try await Self.memberGroup(db, id, account)
            return try await Self.legs(db, id, after: cursor, limit: limit)
        }
    }

    /// The account's distance and runs in each of its last `weeks` weeks, newest first, on its
    /// own calendar: weeks begin on Monday 00:00 in `zone`, as its goals' weeks do.
    func weeklyDistance(
        account: Int64, weeks: Int, now: WallInstant, zone: String
    ) async throws -> [(week: Int64, mm: Int64, runs: Int64)] {
        let monday = TrainingPicture.monday(TrainingPicture.localDay(now, zone: zone))
        let mondays = (0..<weeks).map { monday - Int64($0) * 7 }
        let first = localMidnight(mondays[weeks - 1], zone: zone)
        let rows = try await read { db in
            try await db.query(
                "SELECT started_ns, distance_mm FROM run WHERE account_id = ? AND started_ns >= ?", account, first)
        }
        var buckets = mondays.map { (week: localMidnight($0, zone: zone), mm: Int64(0), runs: Int64(0)) }
        for row in rows {
            let started = WallInstant(nanosecondsSinceEpoch: try row.int("started_ns"))
            let back = (monday - TrainingPicture.monday(TrainingPicture.localDay(started, zone: zone))) / 7
            guard back >= 0, back < Int64(weeks) else { continue }
            buckets[Int(back)].mm += try row.int("distance_mm")
            buckets[Int(back)].runs += 1
        }
        return buckets
    }
}
