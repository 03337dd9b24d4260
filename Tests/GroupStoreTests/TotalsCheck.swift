import Testing

@testable import GroupStore

/// Every group total equals its runs' distances plus what former members ran, every member's
/// distance and run count equal their counted runs', and every leg of a current member holds
/// the distance and number of its counted runs: checked in the database itself, first as the
/// store shows them (stored totals plus the pending tally), then, after rolling the whole tally
/// up, on the stored totals alone.
func checkTotals(_ repository: StoreRepository) async throws {
    var problems = try await totalsProblems(repository)
    #expect(problems.isEmpty, "as shown, with the pending tally: \(problems)")
    try await repository.rollUp(all: true)
    let left = try await repository.database.read { db in try await db.one("SELECT count(*) AS n FROM tally")?.int("n")
    }
    #expect(left == 0, "a roll-up of everything leaves no tally row")
    problems = try await totalsProblems(repository)
    #expect(problems.isEmpty, "rolled up: \(problems)")
}

/// What breaks the invariants, with the pending tally added to each stored total.
func totalsProblems(_ repository: StoreRepository) async throws -> [String] {
    try await repository.database.read { db in
        var problems: [String] = []
        for team in try await db.query(
            """
            SELECT team.id, team.former_mm,
                team.total_mm + coalesce((SELECT sum(distance_mm) FROM tally WHERE tally.team_id = team.id), 0) AS total,
                coalesce((SELECT sum(distance_mm) FROM run_team WHERE run_team.team_id = team.id), 0) AS runs_mm
            FROM team
            """, [])
        where try team.int("total") != team.int("runs_mm") + team.int("former_mm") {
            problems.append(
                "group \(try team.int("id")): total \(try team.int("total")) ≠ runs \(try team.int("runs_mm")) + former \(try team.int("former_mm"))"
            )
        }
        for member in try await db.query(
            """
            SELECT member.team_id, member.account_id,
                member.distance_mm + coalesce((SELECT sum(distance_mm) FROM tally t
                    WHERE t.team_id = member.team_id AND t.account_id = member.account_id), 0) AS distance,
                member.runs + coalesce((SELECT sum(runs) FROM tally t
                    WHERE t.team_id = member.team_id AND t.account_id = member.account_id), 0) AS runs,
                coalesce((SELECT sum(rt.distance_mm) FROM run_team rt JOIN run ON run.id = rt.run_id
                    WHERE rt.team_id = member.team_id AND run.account_id = member.account_id), 0) AS runs_mm,
                (SELECT count(*) FROM run_team rt JOIN run ON run.id = rt.run_id
                    WHERE rt.team_id = member.team_id AND run.account_id = member.account_id) AS run_count
            FROM member
            """, [])
        where try member.int("distance") != member.int("runs_mm") || member.int("runs") != member.int("run_count") {
            problems.append(
                "member \(try member.int("account_id")) of \(try member.int("team_id")): \(try member.int("distance")) mm in \(try member.int("runs")) runs ≠ \(try member.int("runs_mm")) mm in \(try member.int("run_count"))"
            )
        }
        // A leg's runs stop counting when its runner leaves, but it keeps its distance: only the
        // legs of the runner's current membership are checked.
        for leg in try await db.query(
            """
            SELECT leg.id,
                leg.distance_mm + coalesce((SELECT sum(distance_mm) FROM tally WHERE tally.leg_id = leg.id), 0) AS distance,
                leg.runs + coalesce((SELECT sum(runs) FROM tally WHERE tally.leg_id = leg.id), 0) AS runs,
                coalesce((SELECT sum(distance_mm) FROM run_team WHERE run_team.leg_id = leg.id), 0) AS runs_mm,
                (SELECT count(*) FROM run_team WHERE run_team.leg_id = leg.id) AS run_count
            FROM leg JOIN member ON member.team_id = leg.team_id AND member.account_id = leg.account_id
            WHERE member.joined_ns <= leg.taken_ns
            """, [])
        where try leg.int("distance") != leg.int("runs_mm") || leg.int("runs") != leg.int("run_count") {
            problems.append(
                "leg \(try leg.int("id")): \(try leg.int("distance")) mm in \(try leg.int("runs")) runs ≠ \(try leg.int("runs_mm")) mm in \(try leg.int("run_count"))"
            )
        }
        return problems
    }
}
