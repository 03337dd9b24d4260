import HandoffAPI
import HandoffModel

/// Where a run counts: in each group of its runner's that it is part of by time (joined when it
/// started, before the deadline) and whose sports include its own, by the group's factor.
extension StoreRepository {
    /// Adds the run to each group of its runner that it counts toward. Run while holding the
    /// baton, it is part of that relay leg. The totals get a tally row each (Groups/Tally.swift):
    /// no shared row is updated, so concurrent uploads to one group do not wait for one another.
    /// (Its `run_counted` events are recorded once it has committed: `putRun`.)
    /// `passing`: a new run may pass the baton on in a group that passes it by itself; a run
    /// counted again after its sport changed does not.
    static func count(_ db: any SQLSession, _ run: StoredRun, now: WallInstant, passing: Bool = true) async throws {
        let start = run.started.nanosecondsSinceEpoch
        let teams = try await db.query(
            """
            SELECT team.id, team.sports FROM team JOIN member ON member.team_id = team.id
            WHERE member.account_id = ? AND member.joined_ns <= ?
            AND (team.deadline_ns IS NULL OR team.deadline_ns > ?)
            ORDER BY team.id
            """, run.accountID, start, start)
        for row in teams {
            let team = try row.int("id")
            guard let distance = SportRules(column: try row.text("sports")).counted(run.distanceMM, sport: run.sport)
            else { continue }
            let leg = try await db.one(
                """
                SELECT id FROM leg WHERE team_id = ? AND account_id = ? AND taken_ns <= ?
                AND (ended_ns IS NULL OR ended_ns > ?) ORDER BY taken_ns DESC LIMIT 1
                """, team, run.accountID, start, start)?.int("id")
            try await db.query(
                "INSERT INTO run_team (run_id, team_id, leg_id, distance_mm, account_id) VALUES (?, ?, ?, ?, ?)",
                run.id,
                team, leg, distance, run.accountID)
            if let leg, passing {
                try await autoPass(db, team: team, leg: leg, holder: run.accountID, now: now)
            }
        }
        try await tallyCounted(db, run: run.id, account: run.accountID)
    }

    /// The runner's groups that the run does not count in, each with the rule that kept it out:
    /// the same rules as `count`, read against the membership as it is now, so a repeated upload
    /// gets the same answer as the first (or a newer one, when the runner joined a group since).
    static func notCounted(_ db: any SQLSession, _ run: StoredRun) async throws -> [RunNotCounted] {
        let start = run.started.nanosecondsSinceEpoch
        return try await db.query(
            """
            SELECT team.id, team.name, team.deadline_ns, team.sports, member.joined_ns FROM team
            JOIN member ON member.team_id = team.id
            WHERE member.account_id = ? AND team.id NOT IN (SELECT team_id FROM run_team WHERE run_id = ?)
            ORDER BY team.id
            """, run.accountID, run.id
        ).map { row in
            let reason: RunNotCounted.Reason
            if try row.int("joined_ns") > start {
                reason = .startedBeforeJoining
            } else if let deadline = try row.intOrNil("deadline_ns"), deadline <= start {
                reason = .afterDeadline
            } else if SportRules(column: try row.text("sports")).counted(run.distanceMM, sport: run.sport) == nil {
                reason = .sportNotCounted
            } else {
                reason = .notCounted
            }
            return RunNotCounted(groupID: try row.int("id"), groupName: try row.text("name"), reason: reason)
        }
    }

    /// Gives the runner's run another sport and counts it again by the new sport: out of the
    /// groups that do not count it, into those that do, each by its factor; its best efforts
    /// move to the new sport's records. The same sport changes nothing.
    func setSport(
        uuid: String, account: Int64, sport: Sport, now: WallInstant
    ) async throws -> (StoredRun, [RunCount], [RunNotCounted]) {
        try await write { db in
            try await Self.holdPerson(db, account)
            guard
                let row = try await db.one(
                    "SELECT \(runColumns) FROM run WHERE uuid = ? AND account_id = ?", uuid, account)
            else { throw StoreError.notFound("run", uuid) }
            var run = try StoredRun(row)
            let stored = run.sport
            if stored != sport.rawValue {
                // As a deleted run's: a row a leaving member took along at the same moment is not
                // taken away twice.
                let counted = try await db.query(
                    "DELETE FROM run_team WHERE run_id = ? RETURNING team_id, leg_id, distance_mm", run.id)
                try await Self.tallyUncounted(db, counted, account: account)
                run = try StoredRun(
                    try await db.one(
                        "UPDATE run SET sport = ? WHERE id = ? RETURNING \(runColumns)", sport.rawValue, run.id)!)
                try await db.query("UPDATE run_effort SET sport = ? WHERE run_id = ?", sport.rawValue, run.id)
                try await Self.summarise(
                    db, account: account, sport: stored, visibility: run.audience.run.rawValue, started: run.started)
                try await Self.summarise(db, run)
                try await Self.count(db, run, now: now, passing: false)
            }
            return (run, try await Self.counts(db, run.id), try await Self.notCounted(db, run))
        }
    }
}
