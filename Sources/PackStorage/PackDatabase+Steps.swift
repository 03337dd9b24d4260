import GRDB

/// A day's steps outside runs, as the journal keeps them (`step_day`).
public struct StepDay: Hashable, Sendable, Codable {
    /// The day in the pack's time zone: `2026-11-28`.
    public var day: String
    public var steps: Int
    /// The count the store last acknowledged for the day (0: none yet).
    public var uploaded: Int

    public init(day: String, steps: Int, uploaded: Int = 0) {
        self.day = day
        self.steps = steps
        self.uploaded = uploaded
    }
}

extension PackDatabase {
    /// Adds each day's new steps to what the journal has for it, in one transaction.
    public func addSteps(_ added: [String: Int]) throws {
        guard !added.isEmpty else { return }
        try writer.write { db in
            for (day, steps) in added.sorted(by: { $0.key < $1.key }) where steps > 0 {
                try db.execute(
                    sql: """
                        INSERT INTO step_day (day, steps) VALUES (?, ?)
                        ON CONFLICT (day) DO UPDATE SET steps = steps + excluded.steps
                        """, arguments: [day, steps])
            }
        }
    }

    /// The days from `since` on (`2026-11-01`), oldest first.
    public func stepDays(since: String = "") throws -> [StepDay] {
        try writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT day, steps, uploaded FROM step_day WHERE day >= ? ORDER BY day", arguments: [since]
            ).map { StepDay(day: $0["day"], steps: $0["steps"], uploaded: $0["uploaded"]) }
        }
    }

    /// The days whose count the store has not acknowledged, oldest first: at most `limit`.
    public func stepDaysToUpload(limit: Int = 60) throws -> [StepDay] {
        try writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT day, steps, uploaded FROM step_day WHERE steps <> uploaded ORDER BY day LIMIT ?",
                arguments: [limit]
            ).map { StepDay(day: $0["day"], steps: $0["steps"], uploaded: $0["uploaded"]) }
        }
    }

    /// The journal's own random id (v9), the same for as long as the journal lives.
    public func packIdentity() throws -> String {
        try writer.read { db in try String.fetchOne(db, sql: "SELECT id FROM pack_identity LIMIT 1") } ?? ""
    }

    /// Whether any day's count waits for the store.
    public func stepsWaiting() throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM step_day WHERE steps <> uploaded)")
        }
            ?? false
    }

    /// The store acknowledged `steps` for `day` (a count that grew since stays to upload).
    public func markStepsUploaded(day: String, steps: Int) throws {
        try writer.write { db in
            try db.execute(sql: "UPDATE step_day SET uploaded = ? WHERE day = ?", arguments: [steps, day])
        }
    }
}

extension PackDatabase {
    /// The steps of the runs started in `[from, to)` (wall nanoseconds) that have a count.
    public func stepsInRuns(fromWallNs from: Int64, toWallNs to: Int64) throws -> Int {
        try writer.read { db in
            try Int.fetchOne(
                db, sql: "SELECT coalesce(sum(steps), 0) FROM session WHERE start_wall_ns >= ? AND start_wall_ns < ?",
                arguments: [from, to]) ?? 0
        }
    }
}
