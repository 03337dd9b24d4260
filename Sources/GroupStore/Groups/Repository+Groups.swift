import HandoffModel

/// A group: a name, a distance goal, its members and one baton.
public struct Group: Sendable {
    public let id: Int64
    public var name: String
    public var ownerID: Int64?
    public var goalMM: Int64
    public var deadline: WallInstant?
    public var inviteCode: String
    public var leaseSeconds: Int64
    /// The baton passes to the next in the rotation as soon as a run of the holder's leg arrives.
    public var autoPass: Bool
    public let created: WallInstant
    /// Every counted run's distance, including what former members ran (exact: the stored total
    /// plus the pending tally, `groupColumns`).
    public let totalMM: Int64
    public let formerMM: Int64
    /// Which sports count toward the goal, and by what factor.
    var sports: SportRules

    init(_ row: SQLRow) throws(SQLError) {
        id = try row.int("id")
        name = try row.text("name")
        ownerID = try row.intOrNil("owner_id")
        goalMM = try row.int("goal_mm")
        deadline = try row.intOrNil("deadline_ns").map(WallInstant.init(nanosecondsSinceEpoch:))
        inviteCode = try row.text("invite_code")
        leaseSeconds = try row.int("lease_s")
        autoPass = try row.int("auto_pass") != 0
        created = WallInstant(nanosecondsSinceEpoch: try row.int("created_ns"))
        totalMM = try row.int("total_now_mm")
        formerMM = try row.int("former_mm")
        sports = SportRules(column: try row.text("sports"))
    }
}

public struct Baton: Sendable {
    public let holderID: Int64?
    public let holderName: String?
    public let since: WallInstant?
    public let expires: WallInstant?
    public let legID: Int64?
}

public struct Leg: Sendable {
    public let id: Int64
    public let accountID: Int64?
    /// nil once the runner deleted their account.
    public let username: String?
    public let taken: WallInstant
    public let ended: WallInstant?
    /// passed, released, expired or left.
    public let endedHow: String?
    public let passedTo: String?
    public let distanceMM: Int64
    public let runs: Int64

    init(_ row: SQLRow) throws(SQLError) {
        id = try row.int("id")
        accountID = try row.intOrNil("account_id")
        username = try row.textOrNil("username")
        taken = WallInstant(nanosecondsSinceEpoch: try row.int("taken_ns"))
        ended = try row.intOrNil("ended_ns").map(WallInstant.init(nanosecondsSinceEpoch:))
        endedHow = try row.textOrNil("ended_how")
        passedTo = try row.textOrNil("passed_to_name")
        distanceMM = try row.int("distance_now_mm")
        runs = try row.int("runs_now")
    }
}

/// When local day `day` (days since 1970-01-01 on the calendar of `zone`) began: its midnight
/// there, as an instant. The zone's offset is read at the guess and again, so a day that begins
/// just after the clocks change is right too.
func localMidnight(_ day: Int64, zone: String) -> Int64 {
    let local = day * 86_400 * nanosecondsPerSecond
    func offset(_ at: Int64) -> Int64 {
        PageFormat.local(WallInstant(nanosecondsSinceEpoch: at), zone: zone).instant.nanosecondsSinceEpoch - at
    }
    let guess = local - offset(local)
    return local - offset(guess)
}

/// When the week of `instant` began on the calendar of `zone`: Monday 00:00 there.
func weekStart(_ instant: WallInstant, zone: String) -> Int64 {
    localMidnight(TrainingPicture.monday(TrainingPicture.localDay(instant, zone: zone)), zone: zone)
}

/// The start of the week holding `instant`: Monday 00:00 UTC. Groups, whose members live in many
/// zones, count weeks so.
func weekStart(_ instant: WallInstant) -> Int64 {
    let day = 86_400 * nanosecondsPerSecond
    let days =
        instant.nanosecondsSinceEpoch >= 0
        ? instant.nanosecondsSinceEpoch / day : (instant.nanosecondsSinceEpoch - day + 1) / day
    // 1970-01-01 was a Thursday: Monday is three days earlier.
    let monday = days - ((days + 3) % 7 + 7) % 7
    return monday * day
}

extension StoreRepository {
    // MARK: Membership

    /// The group, if `account` is a member; otherwise the same 404 as for a group that does not
    /// exist, so group ids reveal nothing to outsiders.
    static func memberGroup(_ db: any SQLSession, _ id: Int64, _ account: Int64) async throws -> Group {
        guard
            let row = try await db.one(
                """
                SELECT \(groupColumns) FROM team JOIN member ON member.team_id = team.id
                WHERE team.id = ? AND member.account_id = ?
                """, id, account)
        else { throw StoreError.notFound("group", id) }
        return try Group(row)
    }

    static func ownedGroup(_ db: any SQLSession, _ id: Int64, _ account: Int64) async throws -> Group {
        let group = try await memberGroup(db, id, account)
        guard group.ownerID == account else {
            throw StoreError(
                .forbidden, "not_owner", "only the group's owner may do this: ask them, or start a group of your own")
        }
        return group
    }

    func createGroup(
        name: String, goalMM: Int64, deadline: WallInstant?, leaseSeconds: Int64, autoPass: Bool = false,
        sports: SportRules = .standard, inviteCode: String, owner: Int64, now: WallInstant
    ) async throws -> Group {
        try await write { db in
            let t = now.nanosecondsSinceEpoch
            let row = try await db.one(
                """
                INSERT INTO team (name, owner_id, goal_mm, deadline_ns, invite_code, lease_s, auto_pass, created_ns, sports)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """, name, owner, goalMM, deadline?.nanosecondsSinceEpoch, inviteCode, leaseSeconds, autoPass ? 1 : 0,
                t, sports.column)!
            let group = try await Self.group(db, try row.int("id"))!
            try await db.query(
                """
                INSERT INTO member (team_id, account_id, joined_ns, turn, name_key)
                SELECT ?, id, ?, 0, username_key FROM account WHERE id = ?
                """, group.id, t, owner)
            try await db.query("INSERT INTO baton (team_id) VALUES (?)", group.id)
            return group
        }
    }

    func groups(account: Int64) async throws -> [Group] {
        try await read { db in
            try await db.query(
                """
                SELECT \(Self.groupColumns) FROM team JOIN member ON member.team_id = team.id
                WHERE member.account_id = ? ORDER BY team.id
                """, account
            ).map(Group.init)
        }
    }

    /// What an invite link shows before joining: the group, how many members, the first few
    /// names by distance, and whether `account` is a member; nil for an unknown code.
    func invitation(
        _ code: String, account: Int64?
    ) async throws -> (group: Group, count: Int64, names: [String], isMember: Bool)? {
        try await read { db in
            guard let row = try await db.one("SELECT \(Self.groupColumns) FROM team WHERE invite_code = ?", code)
            else { return nil }
            let group = try Group(row)
            let count = try await db.one("SELECT count(*) AS n FROM member WHERE team_id = ?", group.id)?.int("n") ?? 0
            let names = try await db.query(
                """
                SELECT account.username FROM member JOIN account ON account.id = member.account_id
                WHERE member.team_id = ? ORDER BY member.distance_mm DESC, member.account_id LIMIT 8
                """, group.id
            ).map { try $0.text("username") }
            let isMember =
                try await account.asyncMap {
                    try await db.one("SELECT 1 AS x FROM member WHERE team_id = ? AND account_id = ?", group.id, $0)
                } ?? nil != nil
            return (group, count, names, isMember)
        }
    }

    func group(_ id: Int64, account: Int64) async throws -> Group {
        try await read { db in try await Self.memberGroup(db, id, account) }
    }

    /// Saves the owner's changes to name, goal, deadline, lease or invite code.
    func updateGroup(_ id: Int64, owner: Int64, change: @Sendable (inout Group) throws -> Void) async throws -> Group {
        try await write { db in
            var group = try await Self.ownedGroup(db, id, owner)
            try change(&group)
            try await db.query(
                """
                UPDATE team SET name = ?, goal_mm = ?, deadline_ns = ?, lease_s = ?, invite_code = ?, auto_pass = ?,
                sports = ? WHERE id = ?
                """, group.name, group.goalMM, group.deadline?.nanosecondsSinceEpoch, group.leaseSeconds,
                group.inviteCode, group.autoPass ? 1 : 0, group.sports.column, id)
            return try await Self.group(db, id)!
        }
    }

    func deleteGroup(_ id: Int64, owner: Int64) async throws {
        try await write { db in
            _ = try await Self.ownedGroup(db, id, owner)
            try await Self.holdRollUps(db)
            try await db.query("DELETE FROM tally WHERE team_id = ?", id)
            try await db.query("DELETE FROM team WHERE id = ?", id)
        }
    }

    /// Joins by invite code; joining a group again is not an error.
    func join(inviteCode: String, account: Int64, now: WallInstant) async throws -> Group {
        try await write { db in
            guard
                let row = try await db.one("SELECT \(Self.groupColumns) FROM team WHERE invite_code = ?", inviteCode)
            else {
                throw StoreError(
                    .notFound, "unknown_invite",
                    "no group has the invite code \(inviteCode): check it with the person who sent it")
            }
            let group = try Group(row)
            try await db.query(
                """
                INSERT INTO member (team_id, account_id, joined_ns, turn, name_key)
                SELECT ?, id, ?, (SELECT coalesce(max(turn), -1) + 1 FROM member WHERE team_id = ?), username_key
                FROM account WHERE id = ?
                ON CONFLICT (team_id, account_id) DO NOTHING
                """, group.id, now.nanosecondsSinceEpoch, group.id, account)
            return group
        }
    }

    /// A member leaves (or is removed by the owner). What they ran stays in the group's total as
    /// former members' distance; the baton, if they hold it, is freed; ownership passes to the
    /// longest-standing member; a group with nobody left is deleted.
    func leave(_ id: Int64, member: Int64, by actor: Int64, now: WallInstant) async throws {
        try await write { db in
            if member == actor {
                _ = try await Self.memberGroup(db, id, member)
            } else {
                _ = try await Self.ownedGroup(db, id, actor)
                guard
                    try await db.one("SELECT 1 AS x FROM member WHERE team_id = ? AND account_id = ?", id, member)
                        != nil
                else { throw StoreError(.notFound, "member_not_found", "that runner is not a member of this group") }
                // A removed runner's invite link must not bring them back: the group gets a new one.
                try await db.query("UPDATE team SET invite_code = ? WHERE id = ?", GroupRoutes.inviteCode(), id)
            }
            try await Self.removeMember(db, id, member, now: now)
        }
    }

    static func removeMember(_ db: any SQLSession, _ id: Int64, _ account: Int64, now: WallInstant) async throws {
        try await holdRollUps(db)
        try await endLeg(db, team: id, holder: account, at: now.nanosecondsSinceEpoch, how: "left", to: nil)
        // Their runs stop counting here one by one, and what they counted moves to former_mm; their
        // pending tally rows go to their legs and the group's total.
        let counted = try await db.query(
            """
            DELETE FROM run_team WHERE team_id = ? AND run_id IN (SELECT id FROM run WHERE account_id = ?)
            RETURNING distance_mm
            """, id, account)
        let ran = try counted.reduce(Int64(0)) { try $0 + $1.int("distance_mm") }
        let pending = try await foldPending(db, team: id, account: account)
        try await db.query(
            "UPDATE team SET total_mm = total_mm + ?, former_mm = former_mm + ? WHERE id = ?", pending, ran, id)
        try await db.query("DELETE FROM member WHERE team_id = ? AND account_id = ?", id, account)
        if let next = try await db.one(
            "SELECT account_id FROM member WHERE team_id = ? ORDER BY joined_ns, account_id LIMIT 1", id)
        {
            try await db.query(
                "UPDATE team SET owner_id = ? WHERE id = ? AND (owner_id = ? OR owner_id IS NULL)",
                try next.int("account_id"), id, account)
        } else {
            try await db.query("DELETE FROM tally WHERE team_id = ?", id)
            try await db.query("DELETE FROM team WHERE id = ?", id)
        }
    }

    /// The owner moves a member one place earlier or later in the rotation: the two swap turns.
    /// Already first (or last), nothing changes.
    func moveInRotation(_ id: Int64, owner: Int64, member: Int64, earlier: Bool) async throws {
        try await write { db in
            try await Self.holdRollUps(db)
            _ = try await Self.ownedGroup(db, id, owner)
            guard let row = try await db.one("SELECT turn FROM member WHERE team_id = ? AND account_id = ?", id, member)
            else { throw StoreError(.notFound, "member_not_found", "that runner is not a member of this group") }
            let turn = try row.int("turn")
            let neighbour =
                earlier
                ? try await db.one(
                    """
                    SELECT account_id, turn FROM member WHERE team_id = ? AND (turn < ? OR (turn = ? AND account_id < ?))
                    ORDER BY turn DESC, account_id DESC LIMIT 1
                    """, id, turn, turn, member)
                : try await db.one(
                    """
                    SELECT account_id, turn FROM member WHERE team_id = ? AND (turn > ? OR (turn = ? AND account_id > ?))
                    ORDER BY turn, account_id LIMIT 1
                    """, id, turn, turn, member)
            guard let neighbour else { return }
            let next = try neighbour.int("account_id")
            var (mine, theirs) = (turn, try neighbour.int("turn"))
            if mine == theirs {
                // Equal turns (never set apart): every member is numbered in the order shown
                // first, so that the two swap places and nobody else moves.
                try await db.query(
                    """
                    UPDATE member SET turn = ranked.n FROM (
                        SELECT account_id, row_number() OVER (ORDER BY turn, account_id) AS n FROM member WHERE team_id = ?
                    ) AS ranked WHERE member.team_id = ? AND member.account_id = ranked.account_id
                    """, id, id)
                func turn(_ account: Int64) async throws -> Int64 {
                    try await db.one("SELECT turn FROM member WHERE team_id = ? AND account_id = ?", id, account)?
                        .int("turn") ?? 0
                }
                (mine, theirs) = (try await turn(member), try await turn(next))
            }
            try await db.query("UPDATE member SET turn = ? WHERE team_id = ? AND account_id = ?", mine, id, next)
            try await db.query("UPDATE member SET turn = ? WHERE team_id = ? AND account_id = ?", theirs, id, member)
        }
    }

    /// Sets the baton's rotation: every member exactly once. Returns its first `limit` members.
    func setRotation(
        _ id: Int64, owner: Int64, usernames: [String], limit: Int, now: WallInstant
    ) async throws -> Page<Member> {
        try await write { db in
            try await Self.holdRollUps(db)
            _ = try await Self.ownedGroup(db, id, owner)
            let members = try await db.query(
                """
                SELECT member.account_id, account.username_key FROM member
                JOIN account ON account.id = member.account_id WHERE member.team_id = ?
                """, id)
            var byName: [String: Int64] = [:]
            for row in members { try byName[row.text("username_key")] = row.int("account_id") }
            let keys = usernames.map(TextRules.key)
            guard Set(keys) == Set(byName.keys), keys.count == byName.count else {
                let missing = Set(byName.keys).subtracting(keys).sorted()
                let strangers = Set(keys).subtracting(byName.keys).sorted()
                var problems: [String] = []
                if !missing.isEmpty { problems.append("missing \(missing.joined(separator: ", "))") }
                if !strangers.isEmpty { problems.append("not members: \(strangers.joined(separator: ", "))") }
                if keys.count != Set(keys).count { problems.append("a name appears twice") }
                throw StoreError(
                    .unprocessableContent, "invalid_rotation",
                    "the rotation must list every member once (\(problems.joined(separator: "; ")))")
            }
            for (turn, key) in keys.enumerated() {
                try await db.query(
                    "UPDATE member SET turn = ? WHERE team_id = ? AND account_id = ?", turn, id, byName[key]!)
            }
            return try await Self.members(db, team: id, order: .rotation, after: nil, limit: limit, now: now)
        }
    }
}
