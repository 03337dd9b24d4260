import HandoffAPI
import HandoffModel
import Training

/// What a person's records and level need of all their runs, kept up to date as runs come and
/// go (schema 27), so that a profile reads a few dozen rows whatever the number of runs:
/// - `person_week`: per sport, visibility level and week (Monday 00:00 UTC), the runs, distance
///   and time, read as each sport's total and biggest week;
/// - `person_best`: per sport and visibility level, the fastest effort over each standard
///   distance, and the longest run (`distance_m` 0).
///
/// Each row is worked out again from the runs and their efforts whenever a run that belongs to
/// it is stored, deleted, or given another sport or visibility, in that change's transaction; so
/// the rows are what a recomputation would give, never a running sum that could drift.
///
/// Split by visibility level, the rows answer the viewers a level decides alone: the person
/// (every level), a friend (all but private), anyone else (public), someone blocked or looking at a
/// suspended account (nothing). A group-mate who is not a friend may see `groups` runs that counted
/// in a group they share, which is a run's property, not a level's: for them the summary is
/// worked out from the runs they may see (`perRun`), as before.
struct PersonSummary: Sendable, Equatable {
    /// Per sport, the fastest effort over each standard distance.
    var efforts: [KeptEffort]
    /// Per sport, the longest run (a run of no distance is none).
    var longest: [RunMeasure]
    /// Per sport with any run: its distance in all and its biggest week.
    var sports: [SportSum]

    struct Week: Sendable, Equatable {
        var sport: Sport
        var monday: Int64
        var distanceMM: Int64
        var elapsedMS: Int64
    }

    struct SportSum: Sendable, Equatable {
        var sport: Sport
        var distanceMM: Int64
        /// The week (Monday 00:00 UTC) of the most distance; of equal weeks, the earliest (the
        /// one that set it first). nil: no week with any distance.
        var biggest: Week?
    }

    /// Every sport's distance, summed without overflow.
    var distanceMM: Int64 {
        sports.reduce(0) { $0.addingReportingOverflow($1.distanceMM).overflow ? .max : $0 + $1.distanceMM }
    }

    /// From each run's measures and the kept efforts (the per-run way).
    init(efforts: [KeptEffort], measures: [RunMeasure]) {
        self.efforts = efforts
        var longest: [Sport: RunMeasure] = [:]
        var weeks: [Sport: [Int64: Week]] = [:]
        for run in measures {
            if run.distanceMM > 0,
                longest[run.sport].map({ ($0.distanceMM, $0.started) < (run.distanceMM, run.started) }) ?? true
            {
                longest[run.sport] = run
            }
            let monday = weekStart(run.started)
            weeks[run.sport, default: [:]][
                monday, default: Week(sport: run.sport, monday: monday, distanceMM: 0, elapsedMS: 0)
            ].add(run.distanceMM, run.elapsedMS)
        }
        self.longest = longest.values.sorted { $0.sport < $1.sport }
        sports = weeks.map { sport, byWeek in
            SportSum(
                sport: sport,
                distanceMM: byWeek.values.reduce(0) {
                    $0.addingReportingOverflow($1.distanceMM).overflow ? .max : $0 + $1.distanceMM
                },
                biggest: byWeek.values.filter { $0.distanceMM > 0 }.max { a, b in
                    (a.distanceMM, b.monday) < (b.distanceMM, a.monday)
                })
        }.sorted { $0.sport < $1.sport }
    }

    init(efforts: [KeptEffort], longest: [RunMeasure], sports: [SportSum]) {
        self.efforts = efforts
        self.longest = longest
        self.sports = sports
    }

    static let none = PersonSummary(efforts: [], longest: [], sports: [])
}

extension PersonSummary.Week {
    mutating func add(_ distanceMM: Int64, _ elapsedMS: Int64) {
        self.distanceMM =
            self.distanceMM.addingReportingOverflow(distanceMM).overflow ? .max : self.distanceMM + distanceMM
        self.elapsedMS = self.elapsedMS.addingReportingOverflow(elapsedMS).overflow ? .max : self.elapsedMS + elapsedMS
    }
}

extension StoreRepository {
    static let day = 86_400 * nanosecondsPerSecond

    /// Works out again, inside a change's transaction, the summary rows a run in `sport`, at
    /// `visibility`, started at `started` belongs to: its week's, and its sport's bests at its level.
    static func summarise(
        _ db: any SQLSession, account: Int64, sport: String, visibility: String, started: WallInstant
    ) async throws {
        let monday = weekStart(started)
        try await db.query(
            "DELETE FROM person_week WHERE account_id = ? AND visibility = ? AND sport = ? AND week_ns = ?", account,
            visibility, sport, monday)
        try await db.query(
            """
            INSERT INTO person_week (account_id, visibility, sport, week_ns, runs, distance_mm, elapsed_ms)
            SELECT ?, ?, ?, ?, count(*), CAST(sum(distance_mm) AS BIGINT), CAST(sum(elapsed_ms) AS BIGINT) FROM run
            WHERE account_id = ? AND started_ns >= ? AND started_ns < ? AND sport = ? AND visibility = ?
            HAVING count(*) > 0
            """, account, visibility, sport, monday, account, monday, monday + 7 * day, sport, visibility)
        try await db.query(
            "DELETE FROM person_best WHERE account_id = ? AND visibility = ? AND sport = ?", account, visibility, sport)
        for distance in BestEfforts.standard.map({ effortKey($0.meters) }) {
            try await db.query(
                """
                INSERT INTO person_best (account_id, visibility, sport, distance_m, run_id, elapsed_ms)
                SELECT run_effort.account_id, run.visibility, run_effort.sport, run_effort.distance_m,
                    run_effort.run_id, run_effort.elapsed_ms FROM run_effort JOIN run ON run.id = run_effort.run_id
                WHERE run_effort.account_id = ? AND run_effort.sport = ? AND run_effort.distance_m = ?
                AND run.visibility = ?
                ORDER BY run_effort.elapsed_ms, run_effort.run_id LIMIT 1
                """, account, sport, distance, visibility)
        }
        try await db.query(
            """
            INSERT INTO person_best (account_id, visibility, sport, distance_m, run_id, elapsed_ms)
            SELECT account_id, visibility, sport, 0, id, elapsed_ms FROM run
            WHERE account_id = ? AND sport = ? AND visibility = ? AND distance_mm > 0
            ORDER BY distance_mm DESC, started_ns DESC, id DESC LIMIT 1
            """, account, sport, visibility)
    }

    /// On PostgreSQL, makes the transactions that change a person's runs wait for each other, so
    /// that two of them never work out the same summary row at once (each would insert it); a
    /// no-op on SQLite, whose one writer never interleaves two transactions. Called first, before
    /// the transaction changes any row.
    static func holdPerson(_ db: any SQLSession, _ account: Int64) async throws {
        guard db is PostgresSession else { return }
        try await db.query("SELECT pg_advisory_xact_lock(7242028, CAST(? % 2147483647 AS INT))", account)
    }

    /// `summarise` for a run as stored now.
    static func summarise(_ db: any SQLSession, _ run: StoredRun) async throws {
        try await summarise(
            db, account: run.accountID, sport: run.sport, visibility: run.audience.run.rawValue, started: run.started)
    }

    /// The visibility levels whose runs `viewer` (nil: nobody signed in) may all see of the
    /// account's; nil when the level does not decide it (a group-mate who is not a friend).
    static func levelsSeen(_ db: any SQLSession, account: Int64, viewer: Int64?) async throws -> [RunVisibility]? {
        guard let viewer else {
            let suspended = try await db.one("SELECT 1 AS x FROM suspension WHERE account_id = ?", account) != nil
            return suspended ? [] : [.public]
        }
        let relation = try await relation(db, viewer: viewer, person: account)
        if relation.isOwner { return RunVisibility.allCases }
        if relation.blocked || relation.ownerSuspended { return [] }
        if relation.isFriend { return [.friends, .groups, .public] }
        return relation.inRunsGroup ? nil : [.public]
    }

    /// The account's summary among the runs `viewer` may see: from the kept rows when the viewer's
    /// levels decide it, else from the runs themselves.
    func personSummary(account: Int64, viewer: Int64?) async throws -> PersonSummary {
        let kept: PersonSummary? = try await read { db in
            guard let levels = try await Self.levelsSeen(db, account: account, viewer: viewer) else { return nil }
            guard !levels.isEmpty else { return PersonSummary.none }
            return try await Self.keptSummary(db, account: account, levels: levels)
        }
        if let kept { return kept }
        return try await perRunSummary(account: account, viewer: viewer)
    }

    /// The summary worked out from the runs `viewer` may see, one by one.
    func perRunSummary(account: Int64, viewer: Int64?) async throws -> PersonSummary {
        PersonSummary(
            efforts: try await bestEfforts(account: account, viewer: viewer),
            measures: try await runMeasures(account: account, viewer: viewer))
    }

    /// The kept rows of `levels`, combined: the best of each level's bests, each week summed.
    static func keptSummary(
        _ db: any SQLSession, account: Int64, levels: [RunVisibility]
    ) async throws -> PersonSummary {
        let marks = Array(repeating: "?", count: levels.count).joined(separator: ", ")
        let arguments = [SQLValue.integer(account)] + levels.map { .text($0.rawValue) }
        var efforts: [String: (effort: KeptEffort, run: Int64)] = [:]
        var longest: [Sport: RunMeasure] = [:]
        for row in try await db.query(
            """
            SELECT person_best.sport, person_best.distance_m, person_best.run_id, person_best.elapsed_ms,
                run.uuid, run.started_ns, run.distance_mm FROM person_best JOIN run ON run.id = person_best.run_id
            WHERE person_best.account_id = ? AND person_best.visibility IN (\(marks))
            """, arguments)
        {
            let sport = Sport(rawValue: try row.text("sport")) ?? .other
            let meters = try row.int("distance_m")
            let run = try row.int("run_id")
            let started = WallInstant(nanosecondsSinceEpoch: try row.int("started_ns"))
            if meters == 0 {
                let measure = RunMeasure(
                    sport: sport, started: started, distanceMM: try row.int("distance_mm"),
                    elapsedMS: try row.int("elapsed_ms"), uuid: try row.text("uuid"))
                if longest[sport].map({ ($0.distanceMM, $0.started) < (measure.distanceMM, measure.started) }) ?? true {
                    longest[sport] = measure
                }
            } else {
                let effort = KeptEffort(
                    sport: sport, meters: meters, milliseconds: try row.int("elapsed_ms"), uuid: try row.text("uuid"),
                    started: started)
                let key = "\(sport.rawValue) \(meters)"
                if efforts[key].map({ ($0.effort.milliseconds, $0.run) > (effort.milliseconds, run) }) ?? true {
                    efforts[key] = (effort, run)
                }
            }
        }
        // Per sport: the weeks summed over the levels, the biggest of them and their total, in
        // one statement that returns a row per sport.
        let sports = try await db.query(
            """
            SELECT sport, week_ns, distance_mm, elapsed_ms, total_mm FROM (
                SELECT sport, week_ns, distance_mm, elapsed_ms,
                    row_number() OVER (PARTITION BY sport ORDER BY distance_mm DESC, week_ns) AS n,
                    CAST(sum(distance_mm) OVER (PARTITION BY sport) AS BIGINT) AS total_mm
                FROM (
                    SELECT sport, week_ns, CAST(sum(distance_mm) AS BIGINT) AS distance_mm,
                        CAST(sum(elapsed_ms) AS BIGINT) AS elapsed_ms FROM person_week
                    WHERE account_id = ? AND visibility IN (\(marks)) GROUP BY sport, week_ns
                ) AS weeks
            ) AS ranked WHERE n = 1
            """, arguments
        ).map { row in
            let sport = Sport(rawValue: try row.text("sport")) ?? .other
            let week = PersonSummary.Week(
                sport: sport, monday: try row.int("week_ns"), distanceMM: try row.int("distance_mm"),
                elapsedMS: try row.int("elapsed_ms"))
            return PersonSummary.SportSum(
                sport: sport, distanceMM: try row.int("total_mm"), biggest: week.distanceMM > 0 ? week : nil)
        }
        return PersonSummary(
            efforts: efforts.values.map(\.effort).sorted { ($0.sport, $0.meters) < ($1.sport, $1.meters) },
            longest: longest.values.sorted { $0.sport < $1.sport }, sports: sports.sorted { $0.sport < $1.sport })
    }
}
