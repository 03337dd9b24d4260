import HandoffAPI
import HandoffModel
import Training

/// What the store finds in a run's file once and keeps on the run, beside its facts: its best
/// efforts (`run_effort`) and its steps (`run.steps`).
struct RunDerived: Sendable, Equatable {
    var efforts: [BestEfforts.Effort] = []
    var steps: Int?
}

/// A best effort as kept: the run that set it and the time, over a standard distance.
struct KeptEffort: Sendable, Equatable {
    var sport: Sport
    /// Whole metres (`BestEfforts.standard`, rounded: the mile is 1609).
    var meters: Int64
    var milliseconds: Int64
    var uuid: String
    var started: WallInstant
}

/// What one of a person's runs says toward their longest run and biggest week.
struct RunMeasure: Sendable {
    var sport: Sport
    var started: WallInstant
    var distanceMM: Int64
    var elapsedMS: Int64
    var uuid: String
}

/// A person's runs as the records and the level see them (`StoreRepository.runTally`).
struct RunTally: Sendable {
    /// Each sport's longest run.
    var longest: [RunMeasure]
    /// Each sport's biggest week.
    var weeks: [Week]
    /// Every run's distance, summed.
    var distanceMM: Int64

    struct Week: Sendable {
        var sport: Sport
        /// Its Monday, 00:00 UTC, in nanoseconds since 1970.
        var monday: Int64
        var distanceMM: Int64
        var elapsedMS: Int64
    }
}

/// Each run's best efforts, found once (at upload, or for older runs when records are first
/// asked for) and kept in `run_effort` (schema 21): a person's record over a distance is then
/// one walk of an index, whatever their number of runs.
extension StoreRepository {
    /// Whole metres: only ever one of `BestEfforts.standard`'s distances, never a file's value.
    static func effortKey(_ meters: Double) -> Int64 { Int64(meters.rounded()) }

    /// Keeps the run's best efforts and steps, and marks it as looked at.
    static func keepDerived(_ db: any SQLSession, _ run: StoredRun, _ derived: RunDerived) async throws {
        for effort in derived.efforts {
            // A file's times are its own: an effort whose milliseconds do not fit is not kept.
            guard let milliseconds = Int64(exactly: (effort.seconds * 1000).rounded()), milliseconds >= 0 else {
                continue
            }
            try await db.query(
                """
                INSERT INTO run_effort (run_id, account_id, sport, distance_m, elapsed_ms) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (run_id, distance_m) DO UPDATE SET elapsed_ms = excluded.elapsed_ms
                """, run.id, run.accountID, run.sport, effortKey(effort.meters), milliseconds)
        }
        try await db.query(
            "UPDATE run SET efforts = 1, steps = ? WHERE id = ?", derived.steps.map(Int64.init), run.id)
    }

    /// Up to `limit` of the account's runs stored before best efforts were kept.
    func runsWithoutEfforts(account: Int64, limit: Int) async throws -> [String] {
        try await read { db in
            try await db.query(
                "SELECT uuid FROM run WHERE account_id = ? AND efforts IS NULL ORDER BY id LIMIT ?", account,
                Int64(limit)
            ).map { try $0.text("uuid") }
        }
    }

    /// Keeps what was found in an older run's file (nothing when it cannot be read).
    func keepDerived(uuid: String, account: Int64, _ derived: RunDerived) async throws {
        try await write { db in
            guard
                let row = try await db.one(
                    "SELECT \(runColumns) FROM run WHERE uuid = ? AND account_id = ? AND efforts IS NULL", uuid, account
                )
            else { return }  // deleted, or found meanwhile
            try await Self.keepDerived(db, try StoredRun(row), derived)
        }
    }

    /// The account's fastest effort for each sport and distance, among the runs `viewer` may see
    /// (nil: nobody signed in): one index probe each.
    func bestEfforts(account: Int64, viewer: Int64?) async throws -> [KeptEffort] {
        let seen = RunVisibility.sql(viewer: viewer)
        return try await read { db in
            var found: [KeptEffort] = []
            for sport in Sport.allCases {
                for distance in BestEfforts.standard.map({ Self.effortKey($0.meters) }) {
                    guard
                        let row = try await db.query(
                            """
                            SELECT run_effort.elapsed_ms, run.uuid, run.started_ns FROM run_effort
                            JOIN run ON run.id = run_effort.run_id
                            WHERE run_effort.account_id = ? AND run_effort.sport = ? AND run_effort.distance_m = ?
                            AND \(seen.sql)
                            ORDER BY run_effort.elapsed_ms, run_effort.run_id LIMIT 1
                            """, [.integer(account), .text(sport.rawValue), .integer(distance)] + seen.arguments
                        ).first
                    else { continue }
                    found.append(
                        KeptEffort(
                            sport: sport, meters: distance, milliseconds: try row.int("elapsed_ms"),
                            uuid: try row.text("uuid"),
                            started: WallInstant(nanosecondsSinceEpoch: try row.int("started_ns"))))
                }
            }
            return found
        }
    }

    /// What the records and the level need of the account's runs that `viewer` may see, summed
    /// by the database: each sport's longest run and biggest week (Monday to Sunday, UTC), and the
    /// distance of them all. Three statements that each return a row or a few, whatever the number
    /// of runs (BENCHMARKS.md, "The profile and the level").
    func runTally(account: Int64, viewer: Int64?) async throws -> RunTally {
        let seen = RunVisibility.sql(viewer: viewer)
        let arguments: [SQLValue] = [.integer(account)] + seen.arguments
        return try await read { db in
            // Of equal longest runs, the later (as a run that equals a record takes it over).
            let longest = try await db.query(
                """
                SELECT sport, started_ns, distance_mm, elapsed_ms, uuid FROM (
                    SELECT run.sport, run.started_ns, run.distance_mm, run.elapsed_ms, run.uuid,
                        row_number() OVER (PARTITION BY run.sport ORDER BY run.distance_mm DESC, run.started_ns DESC) AS n
                    FROM run WHERE run.account_id = ? AND run.distance_mm > 0 AND \(seen.sql)) ranked
                WHERE n = 1 ORDER BY sport
                """, arguments
            ).map { row in
                RunMeasure(
                    sport: Sport(rawValue: try row.text("sport")) ?? .other,
                    started: WallInstant(nanosecondsSinceEpoch: try row.int("started_ns")),
                    distanceMM: try row.int("distance_mm"), elapsedMS: try row.int("elapsed_ms"),
                    uuid: try row.text("uuid"))
            }
            // Week n starts on day 7n − 3 after 1970-01-01 (a Thursday): `weekStart`. Of equal
            // weeks, the earliest (the one that set it first).
            let weeks = try await db.query(
                """
                SELECT sport, week, mm, ms FROM (
                    SELECT sport, week, mm, ms,
                        row_number() OVER (PARTITION BY sport ORDER BY mm DESC, week ASC) AS n FROM (
                        SELECT run.sport, (run.started_ns / 86400000000000 + 3) / 7 AS week,
                            CAST(sum(run.distance_mm) AS BIGINT) AS mm, CAST(sum(run.elapsed_ms) AS BIGINT) AS ms
                        FROM run WHERE run.account_id = ? AND run.started_ns >= 0 AND \(seen.sql)
                        GROUP BY run.sport, (run.started_ns / 86400000000000 + 3) / 7) weekly
                    WHERE mm > 0) ranked
                WHERE n = 1 ORDER BY sport
                """, arguments
            ).map { row in
                RunTally.Week(
                    sport: Sport(rawValue: try row.text("sport")) ?? .other,
                    monday: (try row.int("week") * 7 - 3) * 86_400 * nanosecondsPerSecond,
                    distanceMM: try row.int("mm"), elapsedMS: try row.int("ms"))
            }
            let total = try await db.query(
                """
                SELECT CAST(coalesce(sum(run.distance_mm), 0) AS BIGINT) AS mm FROM run
                WHERE run.account_id = ? AND \(seen.sql)
                """, arguments)
            return RunTally(
                longest: longest, weeks: weeks, distanceMM: try total.first.map { try $0.int("mm") } ?? 0)
        }
    }

    /// The distances (whole metres) over which this run holds its runner's record in its sport.
    func recordsHeld(run: Int64) async throws -> [Int64] {
        try await read { db in
            try await db.query(
                """
                SELECT e.distance_m FROM run_effort e WHERE e.run_id = ? AND NOT EXISTS (
                    SELECT 1 FROM run_effort o WHERE o.account_id = e.account_id AND o.sport = e.sport
                    AND o.distance_m = e.distance_m
                    AND (o.elapsed_ms < e.elapsed_ms OR (o.elapsed_ms = e.elapsed_ms AND o.run_id < e.run_id)))
                ORDER BY e.distance_m
                """, run
            ).map { try $0.int("distance_m") }
        }
    }
}
