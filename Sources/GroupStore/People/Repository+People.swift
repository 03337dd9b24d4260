import Foundation
import HandoffModel

/// A person as one viewer may see them: their name, where the viewer stands, the profile fields
/// and runs the rule lets the viewer see, and totals over those runs only.
struct SeenPerson: Sendable {
    var id: Int64
    var username: String
    var relation: RunVisibility.Relation
    /// How the two stand as friends, from the viewer's side (nil: neither asked).
    var friendship: Friendship?
    var fields: [(ProfileField, String)]
    var totals: Totals
    var recent: [StoredRun]
    /// Their profile photo, where its level lets the viewer see it.
    var photo: StoredPhoto?

    struct Totals: Sendable, Equatable {
        var runs: Int
        var distanceMM: Int64
        var timerMS: Int64
        var longestMM: Int64
    }
}

extension StoreRepository {
    /// Runs shown on a person's page.
    static let recentOnProfile = 10

    /// The person named `username` as `viewer` sees them; nil for nobody of that name and for
    /// someone either of them blocked alike.
    func person(username: String, viewer: Int64) async throws -> SeenPerson? {
        guard let account = try await account(username: username) else { return nil }
        let (seen, arguments) = RunVisibility.sql(viewer: viewer)
        return try await read { db in
            let relation = try await Self.relation(db, viewer: viewer, person: account.id)
            guard !relation.blocked, !relation.ownerSuspended else { return nil }
            let profile = try await Self.profile(db, account.id)
            let photo = try await db.one(
                "SELECT \(Self.photoColumns) FROM photo WHERE account_id = ? AND run_id IS NULL", account.id
            ).map(StoredPhoto.init)
            let total = try await db.query(
                """
                SELECT count(*) AS n, CAST(coalesce(sum(distance_mm), 0) AS BIGINT) AS mm,
                    CAST(coalesce(sum(timer_ms), 0) AS BIGINT) AS ms, CAST(coalesce(max(distance_mm), 0) AS BIGINT) AS longest
                FROM run WHERE run.account_id = ? AND \(seen)
                """, [.integer(account.id)] + arguments
            ).first
            let recent = try await db.query(
                """
                SELECT \(Self.runColumnsQualified) FROM run WHERE run.account_id = ? AND \(seen)
                ORDER BY run.started_ns DESC, run.id DESC LIMIT \(Self.recentOnProfile)
                """, [.integer(account.id)] + arguments
            ).map(StoredRun.init)
            let ask = try await db.one(
                "SELECT status FROM friend WHERE account_id = ? AND friend_id = ?", viewer, account.id)
            let asked = try await db.one(
                "SELECT status FROM friend WHERE account_id = ? AND friend_id = ?", account.id, viewer)
            let friendship: Friendship? =
                try ask?.text("status") == "friends"
                ? .friends : ask != nil ? .asked : asked != nil ? .asking : nil
            return SeenPerson(
                id: account.id, username: account.username, relation: relation, friendship: friendship,
                fields: profile.seen(by: relation),
                totals: SeenPerson.Totals(
                    runs: Int(try total?.int("n") ?? 0), distanceMM: try total?.int("mm") ?? 0,
                    timerMS: try total?.int("ms") ?? 0, longestMM: try total?.int("longest") ?? 0),
                recent: recent, photo: photo.flatMap { $0.visibility.allows(relation) ? $0 : nil })
        }
    }
}
