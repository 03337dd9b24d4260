import HandoffAPI
import HandoffModel

/// Goals as kept (`goal`, schema 22): one row per person, period, measure and sport ('' for all).
extension StoreRepository {
    private static func goal(_ row: SQLRow) throws(SQLError) -> PersonalGoal? {
        guard let period = PersonalGoal.Period(rawValue: try row.text("period")),
            let measure = PersonalGoal.Measure(rawValue: try row.text("measure"))
        else { return nil }  // a newer store's kind
        let sport = try row.text("sport")
        return PersonalGoal(
            id: try row.int("id"), period: period, measure: measure,
            sport: sport.isEmpty ? nil : Sport(rawValue: sport),
            target: try row.int("target"))
    }

    /// The person's goals: daily before weekly, then by measure and sport.
    func goals(account: Int64) async throws -> [PersonalGoal] {
        let goals = try await read { db in
            try await db.query("SELECT * FROM goal WHERE account_id = ?", account).compactMap(Self.goal)
        }
        func key(_ g: PersonalGoal) -> [Int] {
            [
                PersonalGoal.Period.allCases.firstIndex(of: g.period) ?? 0,
                PersonalGoal.Measure.allCases.firstIndex(of: g.measure) ?? 0,
                g.sport.flatMap { Sport.allCases.firstIndex(of: $0) }.map { $0 + 1 } ?? 0,
            ]
        }
        return goals.sorted { key($0).lexicographicallyPrecedes(key($1)) }
    }

    /// Sets the goal of its period, measure and sport (replacing the one there was); whether it is new.
    func setGoal(account: Int64, _ goal: PersonalGoal) async throws -> (goal: PersonalGoal, created: Bool) {
        try await write { db in
            let sport = goal.sport?.rawValue ?? ""
            var kept = goal
            if let row = try await db.one(
                "SELECT id FROM goal WHERE account_id = ? AND period = ? AND measure = ? AND sport = ?", account,
                goal.period.rawValue, goal.measure.rawValue, sport)
            {
                kept.id = try row.int("id")
                try await db.query("UPDATE goal SET target = ? WHERE id = ?", goal.target, kept.id)
                return (kept, false)
            }
            kept.id = try await db.one(
                "INSERT INTO goal (account_id, period, measure, sport, target) VALUES (?, ?, ?, ?, ?) RETURNING id",
                account, goal.period.rawValue, goal.measure.rawValue, sport, goal.target)!.int("id")
            return (kept, true)
        }
    }

    /// Removes one of the person's goals; false when they have none by that id.
    func deleteGoal(account: Int64, id: Int64) async throws -> Bool {
        try await write { db in
            try await db.one("DELETE FROM goal WHERE id = ? AND account_id = ? RETURNING id", id, account) != nil
        }
    }

    /// Removes the goal of that period, measure and sport, if any.
    func clearGoal(
        account: Int64, period: PersonalGoal.Period, measure: PersonalGoal.Measure, sport: Sport?
    )
        async throws
    {
        try await write { db in
            try await db.query(
                "DELETE FROM goal WHERE account_id = ? AND period = ? AND measure = ? AND sport = ?", account,
                period.rawValue, measure.rawValue, sport?.rawValue ?? "")
        }
    }

    /// The account's runs that started at or after `since` and that `viewer` may see (all of
    /// them for the person themselves).
    func goalRuns(account: Int64, since: WallInstant, viewer: Int64) async throws -> [GoalRun] {
        let seen = RunVisibility.sql(viewer: viewer)
        return try await read { db in
            try await db.query(
                """
                SELECT run.started_ns, run.sport, run.distance_mm, run.timer_ms, run.steps FROM run
                WHERE run.account_id = ? AND run.started_ns >= ? AND \(seen.sql)
                """, [.integer(account), .integer(since.nanosecondsSinceEpoch)] + seen.arguments
            ).map { row in
                GoalRun(
                    started: WallInstant(nanosecondsSinceEpoch: try row.int("started_ns")),
                    sport: Sport(rawValue: try row.text("sport")) ?? .other, distanceMM: try row.int("distance_mm"),
                    timerMS: try row.int("timer_ms"), steps: try row.intOrNil("steps"))
            }
        }
    }
}

extension Services {
    /// The person's goals with their progress, counted over the runs `viewer` may see.
    func goalProgress(_ person: Account, viewer: Int64, now: WallInstant) async throws -> [GoalProgress] {
        let goals = try await repository.goals(account: person.id)
        guard !goals.isEmpty else { return [] }
        if goals.contains(where: { $0.measure == .steps }) { try await fillEfforts(account: person.id) }
        let today = TrainingPicture.localDay(now, zone: person.timeZone)
        let first = goals.map { GoalProgress.firstDay($0.period, today: today) }.min() ?? today
        // A day early: the local calendar is up to 14 hours from UTC either way.
        let since = WallInstant(nanosecondsSinceEpoch: (first - 1) * TrainingPicture.day)
        let runs = try await repository.goalRuns(account: person.id, since: since, viewer: viewer)
        // Steps outside runs belong to no sport: they count toward a steps goal for all sports.
        let outside =
            goals.contains { $0.measure == .steps && $0.sport == nil }
            ? try await repository.stepsOutsideRuns(account: person.id, from: first) : [:]
        return goals.map { GoalProgress($0, runs: runs, outside: outside, today: today, zone: person.timeZone) }
    }
}
