import HandoffModel

/// Where two people stand: friends, one asking the other, or nothing.
enum Friendship: String, Sendable, Equatable {
    case friends
    /// The person asked the other.
    case asked
    /// The other asked the person.
    case asking
}

/// Friends and blocks (schema 12). An ask is the row asker → asked ('asked'); friends are a row
/// each way ('friends').
extension StoreRepository {
    /// Friends, asks and blocks an account may have, each.
    static let mostFriends = 5_000

    /// `account` asks `other`; when `other` had asked `account`, they are friends at once. Asking
    /// again changes nothing. Someone who blocked the person, or whom the person blocked, cannot
    /// be asked: the first answer is the same 404 as a name nobody has, so a block is not told.
    func askFriend(_ account: Int64, _ other: Int64, now: WallInstant) async throws -> Friendship {
        guard account != other else {
            throw StoreError(.unprocessableContent, "invalid_friend", "you cannot ask yourself to be your friend")
        }
        return try await write { db in
            if try await db.one("SELECT 1 AS x FROM block WHERE blocker_id = ? AND blocked_id = ?", account, other)
                != nil
            {
                throw StoreError(
                    .conflict, "blocked", "you blocked this runner: unblock them first (DELETE /v1/blocks/{username})")
            }
            if try await db.one("SELECT 1 AS x FROM block WHERE blocker_id = ? AND blocked_id = ?", other, account)
                != nil
            {
                throw Self.noRunner
            }
            if let mine = try await Self.friendRow(db, account, other) { return mine == "friends" ? .friends : .asked }
            if try await Self.friendRow(db, other, account) == "asked" {
                try await Self.befriend(db, account, other, now: now)
                return .friends
            }
            let count = try await db.one("SELECT count(*) AS n FROM friend WHERE account_id = ?", account)?.int("n")
            guard (count ?? 0) < Self.mostFriends else {
                throw StoreError(
                    .conflict, "too_many_friends",
                    "you have \(Self.mostFriends) friends and asks: remove some before asking more")
            }
            try await db.query(
                "INSERT INTO friend (account_id, friend_id, status, created_ns) VALUES (?, ?, 'asked', ?)", account,
                other,
                now.nanosecondsSinceEpoch)
            try await Self.notify(db, .friendRequest, to: other, actor: account, now: now)
            return .asked
        }
    }

    /// `account` accepts `other`'s ask.
    func acceptFriend(_ account: Int64, _ other: Int64, now: WallInstant) async throws {
        try await write { db in
            guard try await Self.friendRow(db, other, account) == "asked" else {
                throw StoreError(
                    .notFound, "no_request", "this runner has not asked to be your friend (GET /v1/friends lists asks)")
            }
            try await Self.befriend(db, account, other, now: now)
        }
    }

    /// Ends a friendship, takes back an ask, or declines one, whichever there is.
    func removeFriend(_ account: Int64, _ other: Int64) async throws {
        try await write { db in
            let gone = try await db.query(
                """
                DELETE FROM friend WHERE (account_id = ? AND friend_id = ?) OR (account_id = ? AND friend_id = ?)
                RETURNING account_id
                """, account, other, other, account)
            guard !gone.isEmpty else {
                throw StoreError(.notFound, "not_friends", "you are not friends with this runner, and no ask is open")
            }
            // Runs they agreed they ran together stay so; an unanswered "ran with" ask goes.
            try await Self.forgetTogether(db, account, other, pendingOnly: true)
        }
    }

    /// The person's friends and open asks both ways, by name.
    func friends(_ account: Int64) async throws -> [(id: Int64, username: String, status: Friendship)] {
        try await read { db in
            let rows = try await db.query(
                """
                SELECT account.id, account.username, account.username_key, friend.status,
                    CASE WHEN friend.account_id = ? THEN 1 ELSE 0 END AS mine
                FROM friend JOIN account ON account.id = CASE WHEN friend.account_id = ? THEN friend.friend_id
                    ELSE friend.account_id END
                WHERE (friend.account_id = ?) OR (friend.friend_id = ? AND friend.status = 'asked')
                ORDER BY account.username_key
                """, account, account, account, account)
            return try rows.map { row in
                let status = try row.text("status")
                let mine = try row.int("mine") != 0
                return (
                    try row.int("id"), try row.text("username"),
                    status == "friends" ? .friends : mine ? .asked : .asking
                )
            }
        }
    }

    /// `account` blocks `other`: any friendship or ask between them ends, and neither sees the
    /// other's runs from now on.
    func block(_ account: Int64, _ other: Int64, now: WallInstant) async throws {
        guard account != other else {
            throw StoreError(.unprocessableContent, "invalid_block", "you cannot block yourself")
        }
        try await write { db in
            guard try await db.one("SELECT 1 AS x FROM account WHERE id = ?", other) != nil else { throw Self.noRunner }
            try await db.query(
                "DELETE FROM friend WHERE (account_id = ? AND friend_id = ?) OR (account_id = ? AND friend_id = ?)",
                account, other, other, account)
            try await Self.forgetTogether(db, account, other, pendingOnly: false)
            try await db.query(
                """
                INSERT INTO block (blocker_id, blocked_id, created_ns) VALUES (?, ?, ?)
                ON CONFLICT (blocker_id, blocked_id) DO NOTHING
                """, account, other, now.nanosecondsSinceEpoch)
            // What the blocked person did is no longer news to the one who blocked them.
            try await db.query("DELETE FROM notification WHERE account_id = ? AND actor_id = ?", account, other)
        }
    }

    func unblock(_ account: Int64, _ other: Int64) async throws {
        try await write { db in
            let gone = try await db.query(
                "DELETE FROM block WHERE blocker_id = ? AND blocked_id = ? RETURNING blocked_id", account, other)
            guard !gone.isEmpty else {
                throw StoreError(.notFound, "not_blocked", "you have not blocked this runner")
            }
        }
    }

    /// Those the person blocked, by name.
    func blocked(_ account: Int64) async throws -> [(id: Int64, username: String)] {
        try await read { db in
            try await db.query(
                """
                SELECT account.id, account.username FROM block JOIN account ON account.id = block.blocked_id
                WHERE block.blocker_id = ? ORDER BY account.username_key
                """, account
            ).map { (try $0.int("id"), try $0.text("username")) }
        }
    }

    /// Which feed the person last chose.
    func feedScope(_ account: Int64) async throws -> FeedScope {
        try await read { db in
            FeedScope(
                rawValue: try await db.one("SELECT feed_scope FROM account WHERE id = ?", account)?.text("feed_scope")
                    ?? "")
                ?? .everyone
        }
    }

    func setFeedScope(_ account: Int64, _ scope: FeedScope) async throws {
        try await write { db in
            try await db.query("UPDATE account SET feed_scope = ? WHERE id = ?", scope.rawValue, account)
        }
    }

    static let noRunner = StoreError(
        .notFound, "account_not_found", "no runner has this username: check its spelling with the person")

    private static func friendRow(_ db: any SQLSession, _ from: Int64, _ to: Int64) async throws -> String? {
        try await db.one("SELECT status FROM friend WHERE account_id = ? AND friend_id = ?", from, to)?.text("status")
    }

    private static func befriend(_ db: any SQLSession, _ a: Int64, _ b: Int64, now: WallInstant) async throws {
        try await db.query(
            """
            INSERT INTO friend (account_id, friend_id, status, created_ns) VALUES (?, ?, 'friends', ?), (?, ?, 'friends', ?)
            ON CONFLICT (account_id, friend_id) DO UPDATE SET status = 'friends'
            """, a, b, now.nanosecondsSinceEpoch, b, a, now.nanosecondsSinceEpoch)
    }
}
