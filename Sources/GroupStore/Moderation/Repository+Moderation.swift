import Foundation
import HandoffModel

extension StoreRepository {
    static let noReport = StoreError(.notFound, "report_not_found", "there is no such report")

    /// Files `reporter`'s report of a comment or profile they may see now (else the same 404 as
    /// for nothing there), keeping what was reported as it reads now. A second report of the same
    /// thing while the first is open is that report.
    func report(_ target: ReportTarget, reporter: Int64, reason: String, now: WallInstant) async throws -> StoredReport
    {
        let reason = try ReportRules.reason(reason)
        return try await write { db in
            let (reported, commentID, run, excerpt) = try await Self.reported(db, target, reporter: reporter)
            guard reported != reporter else { throw ReportRules.ownWords }
            if let open = try await db.one(
                """
                SELECT id FROM report WHERE reporter_id = ? AND kind = ? AND account_id = ?
                    AND coalesce(comment_id, 0) = ? AND resolved_ns IS NULL
                """, reporter, target.kind, reported, commentID ?? 0)
            {
                return try await Self.report(db, try open.int("id"))
            }
            let count =
                try await db.one(
                    "SELECT count(*) AS n FROM report WHERE reporter_id = ? AND resolved_ns IS NULL", reporter)?.int(
                    "n")
                ?? 0
            guard count < ReportRules.mostOpen else {
                throw StoreError(
                    .conflict, "too_many_reports",
                    "you have \(ReportRules.mostOpen) reports the operator has not dealt with yet: wait for them")
            }
            guard
                let row = try await db.one(
                    """
                    INSERT INTO report (reporter_id, kind, account_id, comment_id, run_uuid, excerpt, reason, created_ns)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                    """, reporter, target.kind, reported, commentID, run, excerpt, reason, now.nanosecondsSinceEpoch)
            else { throw Self.noReport }
            return try await Self.report(db, try row.int("id"))
        }
    }

    /// Who wrote or owns what `target` names, as `viewer` may see it, and its words now.
    private static func reported(
        _ db: any SQLSession, _ target: ReportTarget, reporter: Int64
    ) async throws -> (account: Int64, comment: Int64?, run: String?, excerpt: String) {
        switch target {
        case .comment(let uuid, let id):
            let run = try await Self.seenRunID(db, uuid, viewer: reporter)
            guard let comment = try await Self.comments(db, run: run.id, viewer: reporter).first(where: { $0.id == id })
            else { throw Self.noComment }
            return (comment.authorID, id, uuid, comment.text)
        case .profile(let username):
            guard
                let row = try await db.one(
                    "SELECT id, username FROM account WHERE username_key = ?", TextRules.key(username))
            else { throw Self.noRunner }
            let person = try row.int("id")
            let relation = try await Self.relation(db, viewer: reporter, person: person)
            guard !relation.blocked, !relation.ownerSuspended else { throw Self.noRunner }
            let seen = try await Self.profile(db, person).seen(by: relation)
            var words = seen.map { "\($0.0.label): \($0.0.shown($0.1))" }
            if let photo = try await db.one(
                "SELECT \(Self.photoColumns) FROM photo WHERE account_id = ? AND run_id IS NULL", person
            ).map(StoredPhoto.init), photo.visibility.allows(relation) {
                words.append("Photo: " + SitePath.photo(photo.key).path)
            }
            return (person, nil, nil, (["Username: " + (try row.text("username"))] + words).joined(separator: "\n"))
        }
    }

    static func report(_ db: any SQLSession, _ id: Int64) async throws -> StoredReport {
        guard
            let row = try await db.one(
                """
                SELECT report.*, reporter.username AS reporter_name, reported.username AS reported_name
                FROM report LEFT JOIN account AS reporter ON reporter.id = report.reporter_id
                JOIN account AS reported ON reported.id = report.account_id WHERE report.id = ?
                """, id)
        else { throw Self.noReport }
        return try Self.storedReport(row)
    }

    private static func storedReport(_ row: SQLRow) throws -> StoredReport {
        StoredReport(
            id: try row.int("id"), kind: try row.text("kind"), reporter: try row.textOrNil("reporter_name"),
            reported: try row.text("reported_name"), run: try row.textOrNil("run_uuid"),
            comment: try row.intOrNil("comment_id"), excerpt: try row.text("excerpt"), reason: try row.text("reason"),
            createdAt: iso(WallInstant(nanosecondsSinceEpoch: try row.int("created_ns"))),
            resolvedAt: try row.intOrNil("resolved_ns").map { iso(WallInstant(nanosecondsSinceEpoch: $0)) },
            resolution: try row.textOrNil("resolution"))
    }

    /// Reports for the operator, oldest first: the open ones, or with `all` every one.
    public func reports(all: Bool = false, limit: Int = 200) async throws -> [StoredReport] {
        try await read { db in
            try await db.query(
                """
                SELECT report.*, reporter.username AS reporter_name, reported.username AS reported_name
                FROM report LEFT JOIN account AS reporter ON reporter.id = report.reporter_id
                JOIN account AS reported ON reported.id = report.account_id
                WHERE \(all ? "1 = 1" : "report.resolved_ns IS NULL") ORDER BY report.id LIMIT \(max(1, min(limit, 10_000)))
                """, []
            ).map(Self.storedReport)
        }
    }

    /// Does what the operator chose with an open report, and closes it with every other open
    /// report of the same thing.
    public func resolve(report id: Int64, _ action: ReportAction, now: WallInstant) async throws -> StoredReport {
        try await write { db in
            let report = try await Self.report(db, id)
            guard report.resolvedAt == nil else {
                throw StoreError(
                    .conflict, "already_resolved",
                    "report \(id) was resolved \(report.resolvedAt ?? ""): \(report.resolution ?? "")")
            }
            guard let row = try await db.one("SELECT account_id FROM report WHERE id = ?", id) else {
                throw Self.noReport
            }
            let person = try row.int("account_id")
            let time = now.nanosecondsSinceEpoch
            // Every open report of the same thing closes first: deleting the comment below sets
            // their `comment_id` to NULL, after which they could no longer be told apart.
            try await db.query(
                """
                UPDATE report SET resolved_ns = ?, resolution = ? WHERE resolved_ns IS NULL AND (id = ?
                    OR (kind = ? AND account_id = ? AND coalesce(comment_id, 0) = ?))
                """, time, action.done, id, report.kind, person, report.comment ?? 0)
            // By the report's kind: a comment report whose comment is gone acts on nothing else.
            let profile = report.kind == "profile"
            switch action {
            case .hide:
                if profile {
                    try await db.query("UPDATE profile_field SET visibility = 'private' WHERE account_id = ?", person)
                    try await db.query(
                        "UPDATE photo SET visibility = 'private' WHERE account_id = ? AND run_id IS NULL", person)
                } else if let comment = report.comment {
                    try await db.query(
                        "UPDATE comment SET hidden_ns = ? WHERE id = ? AND hidden_ns IS NULL", time, comment)
                }
            case .delete:
                if profile {
                    try await db.query("DELETE FROM profile_field WHERE account_id = ?", person)
                    try await db.query("DELETE FROM photo WHERE account_id = ? AND run_id IS NULL", person)
                } else if let comment = report.comment {
                    try await db.query("DELETE FROM comment WHERE id = ?", comment)
                }
            case .suspend:
                if !profile, let comment = report.comment {
                    try await db.query(
                        "UPDATE comment SET hidden_ns = ? WHERE id = ? AND hidden_ns IS NULL", time, comment)
                }
                try await Self.suspend(db, person, reason: "report \(id)", now: now)
            case .dismiss:
                break
            }
            return try await Self.report(db, id)
        }
    }

    /// Suspends the account: every session and pack token ends, so nothing of theirs is sent or
    /// changed again until the operator lifts it; the rule (`RunVisibility`) and every list of
    /// people's words leave them out meanwhile.
    static func suspend(_ db: any SQLSession, _ account: Int64, reason: String, now: WallInstant) async throws {
        try await db.query(
            "INSERT INTO suspension (account_id, created_ns, reason) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", account,
            now.nanosecondsSinceEpoch, reason)
        try await db.query("DELETE FROM token WHERE account_id = ?", account)
    }

    /// Suspends (or with `suspended` false, restores) the account named `username`.
    public func setSuspended(username: String, _ suspended: Bool, reason: String, now: WallInstant) async throws {
        try await write { db in
            guard let row = try await db.one("SELECT id FROM account WHERE username_key = ?", TextRules.key(username))
            else { throw Self.noRunner }
            let id = try row.int("id")
            if suspended {
                try await Self.suspend(db, id, reason: reason, now: now)
            } else {
                try await db.query("DELETE FROM suspension WHERE account_id = ?", id)
            }
        }
    }

    /// Whether the operator suspended the account.
    func isSuspended(_ account: Int64) async throws -> Bool {
        try await read { db in try await db.one("SELECT 1 AS x FROM suspension WHERE account_id = ?", account) != nil }
    }
}
