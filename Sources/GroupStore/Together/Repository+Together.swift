import Foundation
import HandoffModel

/// A friend named on a run as having run it too: asked until they accept.
struct TogetherLink: Sendable, Equatable {
    var run: String
    var owner: String
    var ownerID: Int64
    var friend: String
    var friendID: Int64
    /// The friend's own run of it, when the two runs were linked.
    var friendRun: String?
    var accepted: Bool
    var started: WallInstant
}

/// A friend's run that looks like the same run: started within 10 minutes, near the whole way.
struct TogetherOffer: Sendable {
    var run: StoredRun
    var runner: String
    /// The smaller share of either way within 100 m of the other (`TrackMatch`).
    var share: Double
}

extension StoreRepository {
    static let notTogether = StoreError(
        .unprocessableContent, "not_together",
        "that run is not one the store sees as run with yours (a friend's, started within 10 minutes, within 100 m most of the way)"
    )

    private static let linkSelect = """
        SELECT run.uuid, run.started_ns, owner.id AS owner_id, owner.username AS owner_name, friend.id AS friend_id,
            friend.username AS friend_name, theirs.uuid AS friend_uuid, run_together.status
        FROM run_together JOIN run ON run.id = run_together.run_id JOIN account AS owner ON owner.id = run.account_id
        JOIN account AS friend ON friend.id = run_together.account_id
        LEFT JOIN run AS theirs ON theirs.id = run_together.friend_run_id
        """

    private static func link(_ row: SQLRow) throws -> TogetherLink {
        TogetherLink(
            run: try row.text("uuid"), owner: try row.text("owner_name"), ownerID: try row.int("owner_id"),
            friend: try row.text("friend_name"), friendID: try row.int("friend_id"),
            friendRun: try row.textOrNil("friend_uuid"), accepted: try row.text("status") == "accepted",
            started: WallInstant(nanosecondsSinceEpoch: try row.int("started_ns")))
    }

    /// The friends named on a run: all of them for its owner and each named friend; the accepted
    /// ones, less people either of them blocked, for anyone else who sees the run.
    func togetherLinks(run: Int64, owner: Int64, viewer: Int64?) async throws -> [TogetherLink] {
        let (heard, arguments) = Self.unblocked("run_together.account_id", viewer: viewer)
        return try await read { db in
            try await db.query(
                """
                \(Self.linkSelect) WHERE run_together.run_id = ? AND \(heard)
                    AND (run_together.status = 'accepted' OR ? IN (run.account_id, run_together.account_id))
                ORDER BY friend.username_key
                """, [.integer(run)] + arguments + [.integer(viewer ?? -1)]
            ).map(Self.link)
        }
    }

    /// Runs that named the person and wait for their answer, newest first (the home page).
    func togetherAsks(account: Int64) async throws -> [TogetherLink] {
        let (seen, arguments) = RunVisibility.sql(viewer: account)
        return try await read { db in
            try await db.query(
                """
                \(Self.linkSelect) WHERE run_together.account_id = ? AND run_together.status = 'asked' AND \(seen)
                ORDER BY run.started_ns DESC LIMIT 20
                """, [.integer(account)] + arguments
            ).map(Self.link)
        }
    }

    /// Others' runs the person accepted having run, that `viewer` may see (a person's page).
    func ranWith(account: Int64, viewer: Int64) async throws -> [TogetherLink] {
        let (seen, arguments) = RunVisibility.sql(viewer: viewer)
        return try await read { db in
            try await db.query(
                """
                \(Self.linkSelect) WHERE run_together.account_id = ? AND run_together.status = 'accepted' AND \(seen)
                ORDER BY run.started_ns DESC LIMIT 10
                """, [.integer(account)] + arguments
            ).map(Self.link)
        }
    }

    /// Friends' runs that started within 10 minutes of `run`, which the viewer (its owner) may see
    /// with their maps, not linked with it yet: the detector's candidates.
    func togetherCandidates(run: StoredRun) async throws -> [(run: StoredRun, runner: String)] {
        let owner = run.accountID
        let (seen, arguments) = RunVisibility.sql(viewer: owner)
        let (map, mapArguments) = RunVisibility.sql(viewer: owner, column: "run.map_visibility")
        let window = TrackMatch.startWindowNanoseconds
        return try await read { db in
            try await db.query(
                """
                SELECT \(Self.runColumnsQualified), account.username FROM run JOIN account ON account.id = run.account_id
                WHERE run.started_ns BETWEEN ? AND ? AND run.account_id <> ?
                    AND EXISTS (SELECT 1 FROM friend WHERE friend.account_id = ? AND friend.friend_id = run.account_id
                        AND friend.status = 'friends')
                    AND \(seen) AND \(map)
                    AND NOT EXISTS (SELECT 1 FROM run_together WHERE (run_together.run_id = ? AND run_together.account_id = run.account_id)
                        OR (run_together.run_id = run.id AND run_together.account_id = ?))
                ORDER BY run.started_ns LIMIT 20
                """,
                [
                    .integer(run.started.nanosecondsSinceEpoch - window),
                    .integer(run.started.nanosecondsSinceEpoch + window),
                    .integer(owner), .integer(owner),
                ] + arguments + mapArguments + [.integer(run.id), .integer(owner)]
            ).map { (try StoredRun($0), try $0.text("username")) }
        }
    }

    /// The owner names `friend` (a friend of theirs) on their run `uuid`, with the friend's own
    /// run `friendRun` when the two were offered as one. When the friend had already named the
    /// owner on that run, both are accepted at once.
    func linkTogether(
        uuid: String, owner: Int64, friend username: String, friendRun: StoredRun?, now: WallInstant
    ) async throws {
        try await write { db in
            guard let run = try await db.one("SELECT id FROM run WHERE uuid = ? AND account_id = ?", uuid, owner) else {
                throw StoreError.notFound("run", uuid)
            }
            let runID = try run.int("id")
            // A linked run names its own runner, whatever name came with it.
            let named =
                friendRun.map { ("account.id = ?", SQLValue.integer($0.accountID)) }
                ?? ("account.username_key = ?", SQLValue.text(TextRules.key(username)))
            guard
                let friend = try await db.query(
                    """
                    SELECT account.id FROM account JOIN friend ON friend.friend_id = account.id
                    WHERE \(named.0) AND friend.account_id = ? AND friend.status = 'friends'
                    """, [named.1, .integer(owner)]
                ).first
            else {
                throw StoreError(
                    .unprocessableContent, "not_friends",
                    "you can name only your friends as having run with you: ask \(username) to be friends first")
            }
            let friendID = try friend.int("id")
            var accepted = false
            if let friendRun {
                // The friend named the owner on their run first: both agree.
                let answered = try await db.query(
                    """
                    UPDATE run_together SET status = 'accepted', friend_run_id = ?
                    WHERE run_id = ? AND account_id = ? RETURNING run_id
                    """, runID, friendRun.id, owner)
                accepted = !answered.isEmpty
            }
            try await db.query(
                """
                INSERT INTO run_together (run_id, account_id, friend_run_id, status, created_ns) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (run_id, account_id) DO UPDATE SET
                    status = CASE WHEN excluded.friend_run_id IS NOT NULL
                        AND coalesce(run_together.friend_run_id, -1) <> excluded.friend_run_id
                        THEN excluded.status ELSE run_together.status END,
                    friend_run_id = coalesce(excluded.friend_run_id, run_together.friend_run_id)
                """, runID, friendID, friendRun?.id, accepted ? "accepted" : "asked", now.nanosecondsSinceEpoch)
        }
    }

    /// The named friend accepts (or declines: the name goes) having run `uuid`. Accepting a link
    /// of the two runs names the owner on the friend's run too, so each page says it.
    func answerTogether(uuid: String, account: Int64, accept: Bool, now: WallInstant) async throws {
        let (seen, arguments) = RunVisibility.sql(viewer: account)
        try await write { db in
            // Only a friend who may see the run answers (a block or an unfriending since: 404).
            guard
                try await !db.query(
                    """
                    SELECT run.id FROM run JOIN friend ON friend.account_id = ? AND friend.friend_id = run.account_id
                        AND friend.status = 'friends'
                    WHERE run.uuid = ? AND \(seen)
                    """, [.integer(account), .text(uuid)] + arguments
                ).isEmpty
            else { throw Self.noTogether }
            let changed =
                accept
                ? try await db.query(
                    """
                    UPDATE run_together SET status = 'accepted'
                    WHERE account_id = ? AND run_id = (SELECT id FROM run WHERE uuid = ?) RETURNING run_id, friend_run_id
                    """, account, uuid)
                : try await db.query(
                    """
                    DELETE FROM run_together WHERE account_id = ? AND run_id = (SELECT id FROM run WHERE uuid = ?)
                    RETURNING run_id, friend_run_id
                    """, account, uuid)
            guard let row = changed.first else { throw Self.noTogether }
            if accept, let theirs = try row.intOrNil("friend_run_id") {
                try await Self.agree(db, run: theirs, account: account, names: try row.int("run_id"), now: now)
            }
        }
    }

    /// On `run` (of `account`), its owner named with their run `names`, agreed by both.
    private static func agree(
        _ db: any SQLSession, run: Int64, account: Int64, names other: Int64, now: WallInstant
    ) async throws {
        try await db.query(
            """
            INSERT INTO run_together (run_id, account_id, friend_run_id, status, created_ns)
            SELECT ?, run.account_id, run.id, 'accepted', ? FROM run WHERE run.id = ?
            ON CONFLICT (run_id, account_id) DO UPDATE SET status = 'accepted', friend_run_id = excluded.friend_run_id
            """, run, now.nanosecondsSinceEpoch, other)
    }

    /// The friend's run `theirs` that names the owner with the owner's run `uuid`: linking back is
    /// agreeing.
    func linkedBack(uuid: String, owner: Int64, theirs: String) async throws -> StoredRun? {
        try await read { db in
            try await db.one(
                """
                SELECT \(Self.runColumnsQualified) FROM run JOIN run_together ON run_together.run_id = run.id
                JOIN run AS mine ON mine.id = run_together.friend_run_id
                WHERE run.uuid = ? AND run_together.account_id = ? AND mine.uuid = ? AND mine.account_id = ?
                """, theirs, owner, uuid, owner
            ).map(StoredRun.init)
        }
    }

    /// The run's owner takes a name off their run.
    func removeTogether(uuid: String, owner: Int64, friend username: String) async throws {
        try await write { db in
            let removed = try await db.query(
                """
                DELETE FROM run_together WHERE run_id = (SELECT id FROM run WHERE uuid = ? AND account_id = ?)
                    AND account_id = (SELECT id FROM account WHERE username_key = ?) RETURNING run_id
                """, uuid, owner, TextRules.key(username))
            guard !removed.isEmpty else { throw Self.noTogether }
        }
    }

    /// Takes each of two people's names off the other's runs (with `pendingOnly`, only the
    /// unanswered ones): a block ends them all, the end of a friendship the open asks.
    static func forgetTogether(_ db: any SQLSession, _ a: Int64, _ b: Int64, pendingOnly: Bool) async throws {
        try await db.query(
            """
            DELETE FROM run_together WHERE \(pendingOnly ? "status = 'asked' AND" : "")
                ((account_id = ? AND run_id IN (SELECT id FROM run WHERE account_id = ?))
                OR (account_id = ? AND run_id IN (SELECT id FROM run WHERE account_id = ?)))
            """, a, b, b, a)
    }

    static let noTogether = StoreError(
        .notFound, "together_not_found", "nobody named on this run answers to that: it may have been taken off")
}
