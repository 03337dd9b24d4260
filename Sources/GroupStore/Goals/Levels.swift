import HandoffAPI
import HandoffModel
import Hummingbird

/// Levels and objectives (issue 34; the rules are in docs/levels.md). No level is kept: each is
/// worked out from the person's summary (`PersonSummary`, itself kept equal to the runs there are
/// now) among the runs the viewer may see, so deleting a run or changing its sport can take an
/// objective, and a level, back.
struct Level: Sendable, Equatable {
    /// Points for each objective done; each whole kilometre is one point.
    static let objectivePoints = 50

    struct Objective: Sendable, Equatable {
        var id: String
        var name: String
        var rule: String
    }

    static let objectives = [
        Objective(id: "first_5k", name: "First 5 km", rule: "A run (sport run) of 5 km or more."),
        Objective(id: "first_10k", name: "First 10 km", rule: "A run of 10 km or more."),
        Objective(id: "half_marathon", name: "Half marathon", rule: "A run of 21.0975 km or more."),
        Objective(id: "marathon", name: "Marathon", rule: "A run of 42.195 km or more."),
        Objective(
            id: "four_weeks", name: "Four weeks in a row",
            rule: "A weekly goal met four weeks in a row, among the 12 weeks before this one."),
        Objective(
            id: "baton_leg", name: "Carried the baton", rule: "A run counted in a group while you held its baton."),
        Objective(id: "group_goal", name: "Group goal reached", rule: "A group you ran for reached its goal."),
    ]

    /// The points level `n` needs: 50·n·(n−1) (level 2 at 100, 3 at 300, 4 at 600, …).
    static func threshold(_ n: Int) -> Int { 50 * n * (n - 1) }

    var distanceMM: Int64
    var done: Set<String>

    var points: Int { Int(clamping: distanceMM / 1_000_000) + Self.objectivePoints * done.count }
    var level: Int {
        var n = 1
        while Self.threshold(n + 1) <= points { n += 1 }
        return n
    }

    /// From the person's lifetime distance in every sport, their longest run (sport run), their
    /// weekly goals and what the store found of batons and groups.
    init(distanceMM: Int64, longestRunMM: Int64, weeklyGoals: [GoalProgress], carried: Bool, groupGoal: Bool) {
        self.distanceMM = distanceMM
        let longest = longestRunMM
        var done: Set<String> = []
        for (id, mm) in [
            ("first_5k", 5_000_000), ("first_10k", 10_000_000), ("half_marathon", 21_097_500), ("marathon", 42_195_000),
        ]
        where longest >= mm {
            done.insert(id)
        }
        let fourInARow = weeklyGoals.contains { progress in
            var run = 0
            for period in progress.earlier {
                run = period.done >= progress.goal.target ? run + 1 : 0
                if run >= 4 { return true }
            }
            return false
        }
        if fourInARow { done.insert("four_weeks") }
        if carried { done.insert("baton_leg") }
        if groupGoal { done.insert("group_goal") }
        self.done = done
    }

    var view: LevelView {
        LevelView(
            level: level, points: points, distanceM: Double(distanceMM) / 1000,
            nextLevelPoints: Self.threshold(level + 1),
            objectives: Self.objectives.map {
                .init(id: $0.id, name: $0.name, rule: $0.rule, done: done.contains($0.id))
            })
    }
}

extension StoreRepository {
    /// Whether any of the account's runs that `viewer` may see counted while it held a baton,
    /// and whether any counted in a group that has reached its goal.
    func batonAndGroupGoal(account: Int64, viewer: Int64) async throws -> (carried: Bool, groupGoal: Bool) {
        let seen = RunVisibility.sql(viewer: viewer)
        return try await read { db in
            // Both start from the person's own rows of `run_team` (`run_team_account`): their legs,
            // and the distinct groups their runs counted in; only those are joined to the runs.
            let carried = try await db.query(
                """
                SELECT 1 AS x FROM run_team JOIN run ON run.id = run_team.run_id
                WHERE run_team.account_id = ? AND run_team.leg_id IS NOT NULL AND \(seen.sql) LIMIT 1
                """, [.integer(account)] + seen.arguments)
            let reached = try await db.query(
                """
                SELECT 1 AS x FROM team
                WHERE team.id IN (SELECT run_team.team_id FROM run_team WHERE run_team.account_id = ?)
                AND team.total_mm + CAST(coalesce((SELECT sum(tally.distance_mm)
                    FROM tally WHERE tally.team_id = team.id), 0) AS BIGINT) >= team.goal_mm
                AND EXISTS (SELECT 1 FROM run_team JOIN run ON run.id = run_team.run_id
                    WHERE run_team.account_id = ? AND run_team.team_id = team.id AND \(seen.sql))
                LIMIT 1
                """, [.integer(account), .integer(account)] + seen.arguments)
            return (!carried.isEmpty, !reached.isEmpty)
        }
    }
}

extension Services {
    /// The person's level and objectives, from the runs `viewer` may see; goals count only
    /// where the viewer may see them (the person and their friends). A caller that has read the
    /// summary or the goals' progress already passes them.
    func level(
        _ person: Account, viewer: Int64, goalsSeen: Bool, summary: PersonSummary? = nil,
        progress: [GoalProgress]? = nil
    ) async throws -> Level {
        var seen = summary
        if seen == nil { seen = try await repository.personSummary(account: person.id, viewer: viewer) }
        var weekly: [GoalProgress] = []
        if goalsSeen {
            if let progress {
                weekly = progress
            } else {
                weekly = try await goalProgress(person, viewer: viewer, now: now())
            }
            weekly = weekly.filter { $0.goal.period == .week }
        }
        let found = try await repository.batonAndGroupGoal(account: person.id, viewer: viewer)
        return Level(
            distanceMM: seen?.distanceMM ?? 0, longestRunMM: seen?.longest.first { $0.sport == .run }?.distanceMM ?? 0,
            weeklyGoals: weekly, carried: found.carried, groupGoal: found.groupGoal)
    }
}

extension LevelView: ResponseGenerator, ResponseEncodable {}

extension GoalRoutes {
    func registerLevel(_ router: RouteRecorder) {
        router.get("/v1/me/level") { request, _ in
            let account = try await services.caller(request).account
            return try await services.level(account, viewer: account.id, goalsSeen: true).view
        }
    }
}
