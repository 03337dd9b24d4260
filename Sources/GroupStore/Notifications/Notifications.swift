import HandoffAPI
import HandoffModel

/// What the store tells a person (issue 35), each written in the transaction of what it tells
/// of: the baton passed to them, the baton free in their group (set down, or its time run out),
/// a friend's ask, kudos or a comment on their run, their group's goal reached. No one is told
/// of what they did themselves, nor of anything done by someone they blocked.
enum NotificationKind: String, Sendable, CaseIterable {
    case batonPassed = "baton_passed"
    case batonReleased = "baton_released"
    case batonExpired = "baton_expired"
    case friendRequest = "friend_request"
    case kudos
    case comment
    case goalReached = "goal_reached"
}

/// A notification as stored, with the names it is worded from as they are now.
struct StoredNotification: Sendable, Equatable {
    var id: Int64
    var kind: NotificationKind
    var created: WallInstant
    var read: Bool
    var actor: String?
    var team: (id: Int64, name: String)?
    var run: (uuid: String, sport: String, started: WallInstant)?

    static func == (a: Self, b: Self) -> Bool { a.id == b.id && a.read == b.read }

    init(_ row: SQLRow) throws {
        id = try row.int("id")
        kind = NotificationKind(rawValue: try row.text("kind")) ?? .comment
        created = WallInstant(nanosecondsSinceEpoch: try row.int("created_ns"))
        read = try row.intOrNil("read_ns") != nil
        actor = try row.textOrNil("actor")
        if let id = try row.intOrNil("team_id"), let name = try row.textOrNil("team_name") { team = (id, name) }
        if let uuid = try row.textOrNil("run_uuid") {
            run = (
                uuid, try row.text("run_sport"), WallInstant(nanosecondsSinceEpoch: try row.int("run_started_ns"))
            )
        }
    }

    /// The notification in words, and the page it is about. `zone`: the reader's time zone, for
    /// a run's day.
    func worded(zone: String) -> (text: String, href: String) {
        let who = actor ?? "Someone"
        let group = team?.name ?? "your group"
        let groupPage = team.map { SitePath.group($0.id).path } ?? SitePath.home.path
        let runName = run.map {
            "your \(RunPage.sportName($0.sport).lowercased()) of \(PageFormat.time($0.started, zone: zone).text)"
        }
        let runPage = run.map { SitePath.run($0.uuid).path } ?? SitePath.runs().path
        return switch kind {
        case .batonPassed: ("\(who) passed you the baton in \(group): it is yours.", groupPage)
        case .batonReleased: ("\(who) set the baton down in \(group): it is free.", groupPage)
        case .batonExpired: ("\(who)'s time with the baton ran out in \(group): it is free.", groupPage)
        case .friendRequest: ("\(who) asks to be your friend.", SitePath.friends.path)
        case .kudos: ("\(who) gave kudos to \(runName ?? "your run").", runPage)
        case .comment:
            (
                "\(who) commented on \(runName ?? "your run").",
                run.map { SitePath.run($0.uuid, at: "responses").path } ?? runPage
            )
        case .goalReached: ("\(group) reached its goal, thanks to everyone who ran for it.", groupPage)
        }
    }
}

extension StoreRepository {
    /// Tells `account` of something `actor` did, in the caller's transaction; nothing when they
    /// are the same person, or when `account` blocked `actor`.
    static func notify(
        _ db: any SQLSession, _ kind: NotificationKind, to account: Int64, actor: Int64?, team: Int64? = nil,
        run: Int64? = nil, now: WallInstant
    ) async throws {
        if let actor {
            guard actor != account else { return }
            let blocked = try await db.one(
                "SELECT 1 AS x FROM block WHERE blocker_id = ? AND blocked_id = ?", account, actor)
            guard blocked == nil else { return }
        }
        try await db.query(
            "INSERT INTO notification (account_id, kind, actor_id, team_id, run_id, created_ns) VALUES (?, ?, ?, ?, ?, ?)",
            account, kind.rawValue, actor, team, run, now.nanosecondsSinceEpoch)
    }

    /// Tells every member of the group but `actor` (and those who blocked `actor`), in one
    /// statement however many they are.
    static func notifyMembers(
        _ db: any SQLSession, _ kind: NotificationKind, team: Int64, actor: Int64?, now: WallInstant
    ) async throws {
        try await db.query(
            """
            INSERT INTO notification (account_id, kind, actor_id, team_id, created_ns)
            SELECT member.account_id, CAST(? AS TEXT), CAST(? AS BIGINT), member.team_id, CAST(? AS BIGINT)
            FROM member WHERE member.team_id = ? AND member.account_id <> ? AND NOT EXISTS (
                SELECT 1 FROM block WHERE block.blocker_id = member.account_id AND block.blocked_id = ?)
            """, kind.rawValue, actor, now.nanosecondsSinceEpoch, team, actor ?? 0, actor ?? 0)
    }

    /// What a group's event tells its members (`recordEvent`): the baton passed to its new
    /// holder, the baton free to everyone but who set it down, the goal reached to all.
    static func notifyOfEvent(
        _ db: any SQLSession, team: Int64, kind: String, holder: Int64?, from: Int64?, now: WallInstant
    ) async throws {
        switch kind {
        case "baton_passed":
            if let holder { try await notify(db, .batonPassed, to: holder, actor: from, team: team, now: now) }
        case "baton_released": try await notifyMembers(db, .batonReleased, team: team, actor: from, now: now)
        case "baton_expired": try await notifyMembers(db, .batonExpired, team: team, actor: from, now: now)
        case "goal_reached": try await notifyMembers(db, .goalReached, team: team, actor: nil, now: now)
        default: break
        }
    }

    static let notificationColumns = """
        notification.id, notification.kind, notification.created_ns, notification.read_ns, actor.username AS actor,
        notification.team_id, team.name AS team_name, run.uuid AS run_uuid, run.sport AS run_sport,
        run.started_ns AS run_started_ns
        """

    /// A page of the person's notifications, newest first, before the one numbered `before`,
    /// and how many of all of theirs are unread.
    func notifications(
        account: Int64, before: Int64?, limit: Int
    ) async throws -> (
        rows: [StoredNotification], unread: Int, next: Int64?
    ) {
        try await read { db in
            let rows = try await db.query(
                """
                SELECT \(Self.notificationColumns) FROM notification
                LEFT JOIN account AS actor ON actor.id = notification.actor_id
                LEFT JOIN team ON team.id = notification.team_id LEFT JOIN run ON run.id = notification.run_id
                WHERE notification.account_id = ? AND notification.id < ? ORDER BY notification.id DESC LIMIT ?
                """, account, before ?? Int64.max, Int64(limit + 1)
            ).map(StoredNotification.init)
            let unread = try await Self.unread(db, account: account)
            return (Array(rows.prefix(limit)), unread, rows.count > limit ? rows[limit - 1].id : nil)
        }
    }

    static func unread(_ db: any SQLSession, account: Int64) async throws -> Int {
        Int(
            try await db.one(
                "SELECT count(*) AS n FROM notification WHERE account_id = ? AND read_ns IS NULL", account)?.int("n")
                ?? 0)
    }

    /// How many of the person's notifications are unread (the pages' header).
    func unreadNotifications(account: Int64) async throws -> Int {
        try await read { db in try await Self.unread(db, account: account) }
    }

    /// Marks the person's notifications up to `upTo` (all, when nil) as read; returns how many
    /// stay unread.
    func markNotificationsRead(account: Int64, upTo: Int64?, now: WallInstant) async throws -> Int {
        try await write { db in
            try await db.query(
                "UPDATE notification SET read_ns = ? WHERE account_id = ? AND read_ns IS NULL AND id <= ?",
                now.nanosecondsSinceEpoch, account, upTo ?? Int64.max)
            return try await Self.unread(db, account: account)
        }
    }
}
