import HandoffModel

public struct Member: Sendable {
    public let accountID: Int64
    public let username: String
    public let joined: WallInstant
    public let turn: Int64
    /// Exact: the stored distance plus the member's pending tally rows.
    public let distanceMM: Int64
    public let runs: Int64
    /// Distance of runs started since Monday 00:00 UTC.
    public let weekMM: Int64
    /// The member's place by distance (1 for the most; equal distances by account id), where the
    /// list knows it: pages by distance and the viewer's own row.
    public internal(set) var rank: Int64?
    /// The stored distance, without the pending rows.
    let storedMM: Int64
    let nameKey: String

    init(_ row: SQLRow) throws(SQLError) {
        accountID = try row.int("account_id")
        username = try row.text("username")
        joined = WallInstant(nanosecondsSinceEpoch: try row.int("joined_ns"))
        turn = try row.int("turn")
        distanceMM = try row.int("distance_now_mm")
        runs = try row.int("runs_now")
        weekMM = try row.int("week_mm")
        storedMM = try row.int("stored_mm")
        nameKey = try row.text("name_key")
    }

    /// Whether a member at `mm` with `account` comes before one at `other` by distance.
    static func precedes(_ mm: Int64, _ account: Int64, _ other: (mm: Int64, account: Int64)) -> Bool {
        mm > other.mm || (mm == other.mm && account < other.account)
    }
}

/// Rows of a list and the cursor of its next page (nil on the last).
struct Page<Row: Sendable>: Sendable {
    let rows: [Row]
    let next: PageCursor?
}

/// The orders a group's members are listed in.
enum MemberOrder: Sendable, Equatable {
    /// The most distance first; exact at every page, pending tally rows included.
    case distance
    /// The baton's rotation.
    case rotation
    /// Names that start with a prefix (a name key, `TextRules.key`), in name order.
    case name(prefix: String)

    /// The kind of cursor that continues a list in this order.
    var cursorKind: PageCursor.Kind {
        switch self {
        case .distance: .distance
        case .rotation: .rotation
        case .name: .name
        }
    }
}

/// A group's members a page at a time, every query on an index of `member` (schema version 7):
/// `member_rank` (team, distance desc, account) for distance, `member_turn` for the rotation,
/// `member_name` for names. The pending tally rows of a group are few (the roll-up folds them
/// every 200 ms), so a page by distance is exact: every member without pending rows keeps their
/// stored place, and only the members with pending rows (read apart) can move.
extension StoreRepository {
    /// Members a page: 50 unless asked, at most 200.
    static let memberLimits = (standard: 50, most: 200)

    /// A member's columns: distance and runs exact (stored + pending), and this week's distance
    /// summed from their runs (`?` is the week's start); one row for each member selected only.
    static let memberColumns = """
        SELECT member.account_id, member.joined_ns, member.turn, member.name_key, member.distance_mm AS stored_mm,
            account.username,
            member.distance_mm + CAST(coalesce((SELECT sum(tally.distance_mm) FROM tally
                WHERE tally.team_id = member.team_id AND tally.account_id = member.account_id), 0) AS BIGINT)
                AS distance_now_mm,
            member.runs + CAST(coalesce((SELECT sum(tally.runs) FROM tally
                WHERE tally.team_id = member.team_id AND tally.account_id = member.account_id), 0) AS BIGINT)
                AS runs_now,
            CAST(coalesce((SELECT sum(run_team.distance_mm) FROM run_team JOIN run ON run.id = run_team.run_id
                WHERE run_team.team_id = member.team_id AND run.account_id = member.account_id
                AND run.started_ns >= ?), 0) AS BIGINT) AS week_mm
        FROM member JOIN account ON account.id = member.account_id
        """

    static func memberRows(
        _ db: any SQLSession, week: Int64, _ rest: String, _ arguments: [any SQLBindable]
    ) async throws -> [Member] {
        try await db.query(memberColumns + "\n" + rest, [week.sqlValue] + arguments.map(\.sqlValue)).map(Member.init)
    }

    /// Rows after (`value`, `account`) in the order of `column` (descending or not), then account
    /// id: those sharing `value` with a greater account id, then the rest. Two range scans of one
    /// index, where one `OR` would scan the group from its start.
    private static func keyset(
        _ db: any SQLSession, week: Int64, team: Int64, filter: (sql: String, arguments: [any SQLBindable]),
        column: String, descending: Bool, after: (value: any SQLBindable, account: Int64)?, limit: Int
    ) async throws -> [Member] {
        let order = "ORDER BY \(column)\(descending ? " DESC" : ""), member.account_id LIMIT ?"
        let base = "WHERE member.team_id = ?\(filter.sql)"
        guard let after else {
            return try await memberRows(db, week: week, "\(base) \(order)", [team] + filter.arguments + [limit])
        }
        var rows = try await memberRows(
            db, week: week, "\(base) AND \(column) = ? AND member.account_id > ? ORDER BY member.account_id LIMIT ?",
            [team] + filter.arguments + [after.value, after.account, limit])
        if rows.count < limit {
            rows += try await memberRows(
                db, week: week, "\(base) AND \(column) \(descending ? "<" : ">") ? \(order)",
                [team] + filter.arguments + [after.value, limit - rows.count])
        }
        return rows
    }

    /// The members of group `team` with pending tally rows, exact.
    static func pendingMembers(_ db: any SQLSession, team: Int64, week: Int64) async throws -> [Member] {
        try await memberRows(
            db, week: week,
            "WHERE member.team_id = ? AND member.account_id IN (SELECT account_id FROM tally WHERE tally.team_id = ?)",
            [team, team])
    }

    /// A page of group `team`'s members in `order`, after `cursor` (which must be of that order).
    static func members(
        _ db: any SQLSession, team: Int64, order: MemberOrder, after cursor: PageCursor?, limit: Int, now: WallInstant
    ) async throws -> Page<Member> {
        let week = weekStart(now)
        switch order {
        case .distance:
            let pending = try await pendingMembers(db, team: team, week: week)
            return try await byDistance(db, team: team, after: cursor, limit: limit, week: week, pending: pending)
        case .rotation:
            var after: (value: any SQLBindable, account: Int64)?
            if case .rotation(let turn, let account) = cursor { after = (turn, account) }
            let rows = try await keyset(
                db, week: week, team: team, filter: ("", []), column: "member.turn", descending: false, after: after,
                limit: limit + 1)
            let last = limit > 0 && rows.count > limit ? rows[limit - 1] : nil
            return Page(
                rows: Array(rows.prefix(limit)), next: last.map { .rotation(turn: $0.turn, account: $0.accountID) })
        case .name(let prefix):
            var after: (value: any SQLBindable, account: Int64)?
            if case .name(let key, let account) = cursor { after = (key, account) }
            // Every key that starts with `prefix` sorts from `prefix` up to `prefix` followed by
            // the last code point, in byte order (BINARY on SQLite, COLLATE "C" on PostgreSQL).
            let rows = try await keyset(
                db, week: week, team: team,
                filter: (" AND member.name_key >= ? AND member.name_key < ?", [prefix, prefix + "\u{10FFFF}"]),
                column: "member.name_key", descending: false, after: after, limit: limit + 1)
            let last = limit > 0 && rows.count > limit ? rows[limit - 1] : nil
            return Page(
                rows: Array(rows.prefix(limit)), next: last.map { .name(key: $0.nameKey, account: $0.accountID) })
        }
    }

    /// Members by distance after `cursor`, exact: the stored order of the members without pending
    /// rows, merged with the members that have some at their exact distance. Taking `limit + 1 +
    /// pending` stored rows is enough, since at most `pending` of them are set aside.
    static func byDistance(
        _ db: any SQLSession, team: Int64, after cursor: PageCursor?, limit: Int, week: Int64, pending: [Member]
    ) async throws -> Page<Member> {
        var after: (mm: Int64, account: Int64)?
        var before: Int64 = 0
        if case .distance(let mm, let account, let rank) = cursor {
            after = (mm, account)
            before = rank
        }
        let moving = Set(pending.map(\.accountID))
        let stored = try await keyset(
            db, week: week, team: team, filter: ("", []), column: "member.distance_mm", descending: true,
            after: after.map { (value: $0.mm, account: $0.account) }, limit: limit + 1 + pending.count)
        var rows =
            stored.filter { !moving.contains($0.accountID) }
            + pending.filter { member in
                after.map { Member.precedes($0.mm, $0.account, (member.distanceMM, member.accountID)) } ?? true
            }
        rows.sort { Member.precedes($0.distanceMM, $0.accountID, ($1.distanceMM, $1.accountID)) }
        rows = Array(rows.prefix(limit + 1))
        for i in rows.indices { rows[i].rank = before + Int64(i) + 1 }
        let last = limit > 0 && rows.count > limit ? rows[limit - 1] : nil
        return Page(
            rows: Array(rows.prefix(limit)),
            next: last.map { .distance(mm: $0.distanceMM, account: $0.accountID, rank: $0.rank ?? 0) })
    }

    /// `account`'s row in group `team` with their exact place by distance (nil if they are not a
    /// member), and how many members the group has, in one pass over the group's `member_rank`
    /// entries: those ahead of them by stored distance, corrected for each member with pending
    /// rows (`pending`) by where they stand now instead.
    static func place(
        _ db: any SQLSession, team: Int64, account: Int64, week: Int64, pending: [Member]
    ) async throws -> (member: Member?, count: Int64) {
        var found = pending.first { $0.accountID == account }
        if found == nil {
            found = try await memberRows(
                db, week: week, "WHERE member.team_id = ? AND member.account_id = ?", [team, account]
            ).first
        }
        guard var me = found else { return (nil, try await memberCount(db, team: team)) }
        let key = (mm: me.distanceMM, account: me.accountID)
        let counts = try await db.one(
            """
            SELECT count(*) AS members, CAST(coalesce(sum(CASE WHEN distance_mm > ? OR (distance_mm = ? AND account_id < ?)
                THEN 1 ELSE 0 END), 0) AS BIGINT) AS ahead
            FROM member WHERE team_id = ?
            """, key.mm, key.mm, key.account, team)
        var rank = try (counts?.int("ahead") ?? 0) + 1
        for member in pending {
            if Member.precedes(member.storedMM, member.accountID, key) { rank -= 1 }
            if Member.precedes(member.distanceMM, member.accountID, key) { rank += 1 }
        }
        me.rank = rank
        return (me, try counts?.int("members") ?? 0)
    }

    static func memberCount(_ db: any SQLSession, team: Int64) async throws -> Int64 {
        try await db.one("SELECT count(*) AS n FROM member WHERE team_id = ?", team)?.int("n") ?? 0
    }

    /// Who follows `account` in group `team`'s rotation (after the last, the first); nil when
    /// `account` is not a member or is the only one.
    static func nextInRotation(_ db: any SQLSession, team: Int64, after account: Int64) async throws -> Int64? {
        guard
            let turn = try await db.one(
                "SELECT turn FROM member WHERE team_id = ? AND account_id = ?", team, account)?.int("turn")
        else { return nil }
        var next = try await db.one(
            "SELECT account_id FROM member WHERE team_id = ? AND turn = ? AND account_id > ? ORDER BY account_id LIMIT 1",
            team, turn, account)
        if next == nil {
            next = try await db.one(
                "SELECT account_id FROM member WHERE team_id = ? AND turn > ? ORDER BY turn, account_id LIMIT 1", team,
                turn)
        }
        if next == nil {
            next = try await db.one(
                "SELECT account_id FROM member WHERE team_id = ? ORDER BY turn, account_id LIMIT 1", team)
        }
        let id = try next?.int("account_id")
        return id == account ? nil : id
    }

    /// The member of group `team` called `username` (any spelling of it), by account id.
    static func member(_ db: any SQLSession, team: Int64, named username: String) async throws -> Int64? {
        try await db.one(
            """
            SELECT member.account_id FROM member JOIN account ON account.id = member.account_id
            WHERE member.team_id = ? AND account.username_key = ?
            """, team, TextRules.key(username))?.int("account_id")
    }

    /// A page of a group's members for a member of it, and how many members it has.
    func members(
        _ id: Int64, account: Int64, order: MemberOrder, after cursor: PageCursor?, limit: Int, now: WallInstant
    ) async throws -> (page: Page<Member>, count: Int64) {
        try await read { db in
            _ = try await Self.memberGroup(db, id, account)
            return (
                try await Self.members(db, team: id, order: order, after: cursor, limit: limit, now: now),
                try await Self.memberCount(db, team: id)
            )
        }
    }
}
