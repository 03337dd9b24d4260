import HandoffAPI
import HandoffModel
import Training

/// What the store finds in a run's file once and keeps on the run, beside its facts: its best
/// efforts (`run_effort`) and its steps (`run.steps`).
struct RunDerived: Sendable, Equatable {
    var efforts: [BestEfforts.Effort] = []
    var steps: Int?
    /// Seconds at each heart rate (`HeartRateHistogram.encoded`), for time in zones per week.
    var heartSeconds: String?
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
struct RunMeasure: Sendable, Equatable {
    var sport: Sport
    var started: WallInstant
    var distanceMM: Int64
    var elapsedMS: Int64
    var uuid: String
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
            "UPDATE run SET efforts = 1, steps = ?, heart_seconds = ? WHERE id = ?", derived.steps.map(Int64.init),
            derived.heartSeconds, run.id)
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
            try await Self.holdPerson(db, account)
            guard
                let row = try await db.one(
                    "SELECT \(runColumns) FROM run WHERE uuid = ? AND account_id = ? AND efforts IS NULL", uuid, account
                )
            else { return }  // deleted, or found meanwhile
            let run = try StoredRun(row)
            try await Self.keepDerived(db, run, derived)
            try await Self.summarise(db, run)
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

    /// The distance, time and start of each of the account's runs that `viewer` may see.
    func runMeasures(account: Int64, viewer: Int64?) async throws -> [RunMeasure] {
        let seen = RunVisibility.sql(viewer: viewer)
        return try await read { db in
            try await db.query(
                """
                SELECT run.sport, run.started_ns, run.distance_mm, run.elapsed_ms, run.uuid FROM run
                WHERE run.account_id = ? AND \(seen.sql)
                """, [.integer(account)] + seen.arguments
            ).map { row in
                RunMeasure(
                    sport: Sport(rawValue: try row.text("sport")) ?? .other,
                    started: WallInstant(nanosecondsSinceEpoch: try row.int("started_ns")),
                    distanceMM: try row.int("distance_mm"), elapsedMS: try row.int("elapsed_ms"),
                    uuid: try row.text("uuid"))
            }
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
