import Foundation
import HandoffModel

/// A comment as its reader is shown it.
struct StoredComment: Sendable, Equatable {
    var id: Int64
    var author: String
    var authorID: Int64
    var text: String
    var created: WallInstant
    var edited: WallInstant?
    /// Hidden by the store's operator after a report: shown to its author alone, saying so.
    var hidden = false
}

/// Kudos on a run as one viewer is shown them: how many, whether the viewer gave one, and from whom.
struct RunKudos: Sendable, Equatable {
    var count: Int
    var given: Bool
    var from: [String]
}

/// Kudos or a comment someone gave one of the runner's runs.
struct Reaction: Sendable, Equatable {
    enum Kind: String, Sendable { case kudos, comment }
    var kind: Kind
    var from: String
    var at: WallInstant
    var run: (uuid: String, sport: String, started: WallInstant)
    var text: String?

    static func == (a: Reaction, b: Reaction) -> Bool {
        (a.kind, a.from, a.at, a.run.uuid, a.text) == (b.kind, b.from, b.at, b.run.uuid, b.text)
    }
}

/// Comments' text: plain, one to `longest` characters, line breaks kept.
enum CommentRules {
    static let longest = 1_000
    /// Comments one run keeps; past it, new ones are refused (409).
    static let mostPerRun = 500

    static func text(_ raw: String) throws(StoreError) -> String {
        let text = try TextRules.paragraphs(raw, field: "comment")
        guard !text.isEmpty else {
            throw StoreError(.unprocessableContent, "empty_comment", "the comment is empty: write something to send")
        }
        guard text.count <= longest else {
            throw StoreError(
                .unprocessableContent, "comment_too_long",
                "a comment is at most \(longest) characters and this one has \(text.count): shorten it")
        }
        return text
    }
}

extension StoreRepository {
    static let noComment = StoreError(.notFound, "comment_not_found", "there is no such comment on this run")

    /// The person in `column` may be heard by `viewer` (the first value bound): their account is
    /// not suspended, and neither of them blocked the other.
    static func unblocked(_ column: String, viewer: Int64?) -> (sql: String, arguments: [SQLValue]) {
        let present = "NOT EXISTS (SELECT 1 FROM suspension WHERE suspension.account_id = \(column))"
        guard let viewer else { return (present, []) }
        return (
            """
            \(present) AND NOT EXISTS (SELECT 1 FROM block WHERE (block.blocker_id = ? AND block.blocked_id = \(column))
                OR (block.blocker_id = \(column) AND block.blocked_id = ?))
            """, [.integer(viewer), .integer(viewer)]
        )
    }

    /// The id and owner of the run `uuid` if `viewer` may see it (the rule's SQL), or 404.
    static func seenRunID(
        _ db: any SQLSession, _ uuid: String, viewer: Int64?
    ) async throws -> (
        id: Int64, owner: Int64
    ) {
        let (seen, arguments) = RunVisibility.sql(viewer: viewer)
        guard
            let row = try await db.query(
                "SELECT run.id, run.account_id FROM run WHERE run.uuid = ? AND \(seen)", [.text(uuid)] + arguments
            ).first
        else { throw StoreError.notFound("run", uuid) }
        return (try row.int("id"), try row.int("account_id"))
    }

    /// Kudos on the run, as `viewer` sees them (those of people either blocked left out).
    static func kudos(_ db: any SQLSession, run: Int64, viewer: Int64?) async throws -> RunKudos {
        let (unblocked, arguments) = Self.unblocked("kudos.account_id", viewer: viewer)
        let names = try await db.query(
            """
            SELECT account.id, account.username FROM kudos JOIN account ON account.id = kudos.account_id
            WHERE kudos.run_id = ? AND \(unblocked) ORDER BY kudos.created_ns, account.id
            """, [.integer(run)] + arguments)
        let from = try names.map { (try $0.int("id"), try $0.text("username")) }
        return RunKudos(count: from.count, given: from.contains { $0.0 == viewer }, from: from.map(\.1))
    }

    /// The kudos and comments `viewer` may see on a run they may see (`SeenRun`), in one read.
    func social(run: Int64, viewer: Int64?) async throws -> (RunKudos, [StoredComment]) {
        try await read { db in
            (try await Self.kudos(db, run: run, viewer: viewer), try await Self.comments(db, run: run, viewer: viewer))
        }
    }

    func kudos(uuid: String, viewer: Int64?) async throws -> RunKudos {
        try await read { db in
            let run = try await Self.seenRunID(db, uuid, viewer: viewer)
            return try await Self.kudos(db, run: run.id, viewer: viewer)
        }
    }

    /// Gives (or with `give` false, takes back) the viewer's kudos on a run they may see; giving
    /// twice is one kudos. A runner gives none to their own runs.
    func setKudos(uuid: String, viewer: Int64, give: Bool, now: WallInstant) async throws -> RunKudos {
        try await write { db in
            let run = try await Self.seenRunID(db, uuid, viewer: viewer)
            guard run.owner != viewer else {
                throw StoreError(
                    .unprocessableContent, "own_run", "kudos are for other people's runs: this one is yours")
            }
            if give {
                let given = try await db.one(
                    """
                    INSERT INTO kudos (run_id, account_id, created_ns) VALUES (?, ?, ?) ON CONFLICT DO NOTHING
                    RETURNING run_id
                    """, run.id, viewer, now.nanosecondsSinceEpoch)
                // Kudos given twice are one, and tell the runner once.
                if given != nil {
                    try await Self.notify(db, .kudos, to: run.owner, actor: viewer, run: run.id, now: now)
                }
            } else {
                try await db.query("DELETE FROM kudos WHERE run_id = ? AND account_id = ?", run.id, viewer)
                // Taken back before the runner read of them: they need not.
                try await db.query(
                    """
                    DELETE FROM notification WHERE run_id = ? AND actor_id = ? AND kind = 'kudos' AND read_ns IS NULL
                    """, run.id, viewer)
            }
            return try await Self.kudos(db, run: run.id, viewer: viewer)
        }
    }

    static func comments(_ db: any SQLSession, run: Int64, viewer: Int64?) async throws -> [StoredComment] {
        let (unblocked, arguments) = Self.unblocked("comment.account_id", viewer: viewer)
        return try await db.query(
            """
            SELECT comment.*, account.username FROM comment JOIN account ON account.id = comment.account_id
            WHERE comment.run_id = ? AND \(unblocked) AND (comment.hidden_ns IS NULL OR comment.account_id = ?)
            ORDER BY comment.id
            """, [.integer(run)] + arguments + [.integer(viewer ?? -1)]
        ).map { row in
            StoredComment(
                id: try row.int("id"), author: try row.text("username"), authorID: try row.int("account_id"),
                text: try row.text("body"), created: WallInstant(nanosecondsSinceEpoch: try row.int("created_ns")),
                edited: try row.intOrNil("edited_ns").map(WallInstant.init(nanosecondsSinceEpoch:)),
                hidden: try row.intOrNil("hidden_ns") != nil)
        }
    }

    /// The run's comments the viewer may read, oldest first, with the run's owner.
    func comments(uuid: String, viewer: Int64?) async throws -> (owner: Int64, comments: [StoredComment]) {
        try await read { db in
            let run = try await Self.seenRunID(db, uuid, viewer: viewer)
            return (run.owner, try await Self.comments(db, run: run.id, viewer: viewer))
        }
    }

    func addComment(uuid: String, viewer: Int64, text: String, now: WallInstant) async throws -> StoredComment {
        let body = try CommentRules.text(text)
        return try await write { db in
            let run = try await Self.seenRunID(db, uuid, viewer: viewer)
            let count = try await db.one("SELECT count(*) AS n FROM comment WHERE run_id = ?", run.id)?.int("n") ?? 0
            guard count < CommentRules.mostPerRun else {
                throw StoreError(
                    .conflict, "too_many_comments",
                    "this run has \(CommentRules.mostPerRun) comments, the most one run keeps: no more can be added")
            }
            guard
                let row = try await db.one(
                    "INSERT INTO comment (run_id, account_id, body, created_ns) VALUES (?, ?, ?, ?) RETURNING id",
                    run.id, viewer, body, now.nanosecondsSinceEpoch)
            else { throw Self.noComment }
            let id = try row.int("id")
            try await Self.notify(db, .comment, to: run.owner, actor: viewer, run: run.id, now: now)
            guard let comment = try await Self.comments(db, run: run.id, viewer: viewer).first(where: { $0.id == id })
            else { throw Self.noComment }
            return comment
        }
    }

    /// Changes the text of the viewer's own comment.
    func editComment(
        uuid: String, id: Int64, viewer: Int64, text: String, now: WallInstant
    ) async throws
        -> StoredComment
    {
        let body = try CommentRules.text(text)
        return try await write { db in
            let run = try await Self.seenRunID(db, uuid, viewer: viewer)
            let changed = try await db.query(
                "UPDATE comment SET body = ?, edited_ns = ? WHERE id = ? AND run_id = ? AND account_id = ? RETURNING id",
                body, now.nanosecondsSinceEpoch, id, run.id, viewer)
            guard !changed.isEmpty,
                let comment = try await Self.comments(db, run: run.id, viewer: viewer).first(where: { $0.id == id })
            else { throw Self.noComment }
            return comment
        }
    }

    /// Deletes a comment: its author's, or any on the run's owner's run.
    func deleteComment(uuid: String, id: Int64, viewer: Int64) async throws {
        try await write { db in
            let run = try await Self.seenRunID(db, uuid, viewer: viewer)
            let deleted = try await db.query(
                "DELETE FROM comment WHERE id = ? AND run_id = ? AND (account_id = ? OR ? = ?) RETURNING id",
                id, run.id, viewer, run.owner, viewer)
            guard !deleted.isEmpty else { throw Self.noComment }
        }
    }

    /// New responses counted at most (the home page says "100 or more").
    static let mostResponsesCounted = 100

    /// Kudos and comments others gave the runner's runs since they last marked them seen: how
    /// many (at most `mostResponsesCounted`), and the newest `limit` (people either blocked left out).
    func newResponses(account: Int64, limit: Int = 5) async throws -> (count: Int, newest: [Reaction]) {
        let (kudosFree, kudosArguments) = Self.unblocked("kudos.account_id", viewer: account)
        let (commentFree, commentArguments) = Self.unblocked("comment.account_id", viewer: account)
        let me = SQLValue.integer(account)
        let sql = """
            SELECT 'kudos' AS kind, kudos.created_ns AS at_ns, account.username, run.uuid, run.sport, run.started_ns,
                CAST(NULL AS TEXT) AS body
            FROM kudos JOIN run ON run.id = kudos.run_id JOIN account ON account.id = kudos.account_id
            WHERE run.account_id = ? AND kudos.account_id <> ? AND kudos.created_ns > ? AND \(kudosFree)
            UNION ALL
            SELECT 'comment', comment.created_ns, account.username, run.uuid, run.sport, run.started_ns, comment.body
            FROM comment JOIN run ON run.id = comment.run_id JOIN account ON account.id = comment.account_id
            WHERE run.account_id = ? AND comment.account_id <> ? AND comment.created_ns > ? AND \(commentFree)
                AND comment.hidden_ns IS NULL
            """
        return try await read { db in
            let seen = SQLValue.integer(
                try await db.one("SELECT responses_seen_ns FROM account WHERE id = ?", account)?.int(
                    "responses_seen_ns") ?? 0)
            let arguments = [me, me, seen] + kudosArguments + [me, me, seen] + commentArguments
            let rows = try await db.query(
                "SELECT * FROM (\(sql)) AS responses ORDER BY at_ns DESC, uuid LIMIT \(Self.mostResponsesCounted)",
                arguments)
            let newest = try rows.prefix(limit).map { row in
                Reaction(
                    kind: Reaction.Kind(rawValue: try row.text("kind")) ?? .comment, from: try row.text("username"),
                    at: WallInstant(nanosecondsSinceEpoch: try row.int("at_ns")),
                    run: (
                        try row.text("uuid"), try row.text("sport"),
                        WallInstant(nanosecondsSinceEpoch: try row.int("started_ns"))
                    ), text: try row.textOrNil("body"))
            }
            return (rows.count, newest)
        }
    }

    /// Every comment the person wrote, oldest first, with its run's uuid: for the export.
    func commentsWritten(account: Int64) async throws -> [(run: String, text: String, created: WallInstant)] {
        try await read { db in
            try await db.query(
                """
                SELECT run.uuid, comment.body, comment.created_ns FROM comment JOIN run ON run.id = comment.run_id
                WHERE comment.account_id = ? ORDER BY comment.id
                """, account
            ).map {
                (
                    try $0.text("uuid"), try $0.text("body"),
                    WallInstant(nanosecondsSinceEpoch: try $0.int("created_ns"))
                )
            }
        }
    }

    /// Marks every kudos and comment on the runner's runs until `now` as seen.
    func markResponsesSeen(account: Int64, now: WallInstant) async throws {
        try await write { db in
            try await db.query(
                "UPDATE account SET responses_seen_ns = ? WHERE id = ?", now.nanosecondsSinceEpoch, account)
        }
    }
}
