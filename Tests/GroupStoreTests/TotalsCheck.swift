import GroupStore
import Testing

/// Every group total equals its runs' distances plus what former members ran, and every
/// member's distance equals their counted runs': checked in the database itself.
func checkTotals(_ repository: StoreRepository) async throws {
    let problems = try await repository.database.read { db in
        var problems: [String] = []
        for team in try await db.query(
            """
            SELECT team.id, team.total_mm, team.former_mm,
                coalesce((SELECT sum(distance_mm) FROM run_team WHERE run_team.team_id = team.id), 0) AS runs_mm
            FROM team
            """, [])
        where try team.int("total_mm") != team.int("runs_mm") + team.int("former_mm") {
            problems.append(
                "group \(try team.int("id")): total \(try team.int("total_mm")) ≠ runs \(try team.int("runs_mm")) + former \(try team.int("former_mm"))"
            )
        }
        for member in try await db.query(
            """
            SELECT member.team_id, member.account_id, member.distance_mm, member.runs,
                coalesce((SELECT sum(rt.distance_mm) FROM run_team rt JOIN run ON run.id = rt.run_id
                    WHERE rt.team_id = member.team_id AND run.account_id = member.account_id), 0) AS runs_mm,
                (SELECT count(*) FROM run_team rt JOIN run ON run.id = rt.run_id
                    WHERE rt.team_id = member.team_id AND run.account_id = member.account_id) AS run_count
            FROM member
            """, [])
        where try member.int("distance_mm") != member.int("runs_mm") || member.int("runs") != member.int("run_count") {
            problems.append("member \(try member.int("account_id")) of \(try member.int("team_id")) is off")
        }
        return problems
    }
    #expect(problems.isEmpty, "\(problems)")
}
