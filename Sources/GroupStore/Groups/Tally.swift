import HandoffModel

/// The totals many writers touch (a group's total, a member's distance and runs, a leg's
/// distance and runs) are a stored base plus the pending rows of `tally` (schema version 6).
/// An upload or a deleted run only inserts rows there, so uploads to one group never wait on
/// one another's row locks; every read adds the pending rows to the base, so what it shows is
/// exact at any moment; and a roll-up folds a batch of rows into the bases and deletes them in
/// one transaction, so each row counts once, as pending or as base.
///
/// On PostgreSQL the roll-up takes advisory lock `rollUpLock` exclusively (an instance that
/// cannot get it skips its turn), and the writers that change rows the roll-up changes in
/// another order (a member leaving, a group deleted, the rotation) take it shared, first thing
/// in their transaction, so neither double-folds nor deadlocks. Lock order otherwise:
/// leg, then team, then member. Uploads and the baton take no advisory lock.
extension StoreRepository {
    static let rollUpLock = 7_242_027

    /// How many pending rows one roll-up transaction folds at most.
    static let rollUpBatch = 5000

    /// A group's columns, `total_now_mm` its exact total: the base plus its pending rows.
    static let groupColumns = """
        team.*, team.total_mm + CAST(coalesce((SELECT sum(tally.distance_mm) FROM tally
            WHERE tally.team_id = team.id), 0) AS BIGINT) AS total_now_mm
        """

    /// The group `id` with its exact total (no membership check).
    static func group(_ db: any SQLSession, _ id: Int64) async throws -> Group? {
        try await db.one("SELECT \(groupColumns) FROM team WHERE id = ?", id).map(Group.init)
    }

    /// On PostgreSQL, keeps roll-ups out until this transaction ends; a no-op on SQLite, whose
    /// one writer never interleaves two transactions. Call it before the transaction changes any
    /// row, or a roll-up already holding the lock could wait on that row while this waits on it.
    static func holdRollUps(_ db: any SQLSession) async throws {
        guard db is PostgresSession else { return }
        try await db.query("SELECT pg_advisory_xact_lock_shared(\(rollUpLock))")
    }

    /// Adds what a run counted (its `run_team` rows) to the totals: +distance and +1 run for each
    /// group, and for the leg it is part of.
    static func tallyCounted(_ db: any SQLSession, run: Int64, account: Int64) async throws {
        try await db.query(
            """
            INSERT INTO tally (team_id, account_id, leg_id, distance_mm, runs)
            SELECT team_id, ?, leg_id, distance_mm, 1 FROM run_team WHERE run_id = ?
            """, account, run)
    }

    /// Takes what counted away again: the `run_team` rows `uncounted` (as a DELETE … RETURNING
    /// gave them, so a row a leaving member took along is not taken twice).
    static func tallyUncounted(_ db: any SQLSession, _ uncounted: [SQLRow], account: Int64) async throws {
        for row in uncounted {
            try await db.query(
                "INSERT INTO tally (team_id, account_id, leg_id, distance_mm, runs) VALUES (?, ?, ?, ?, -1)",
                try row.int("team_id"), account, try row.intOrNil("leg_id"), -(try row.int("distance_mm")))
        }
    }

    /// A leaving member's pending rows in group `team`: folded into their legs and deleted. Returns
    /// their distance, which the caller adds to the group's stored total. Needs `holdRollUps`.
    static func foldPending(_ db: any SQLSession, team: Int64, account: Int64) async throws -> Int64 {
        let rows = try await db.query(
            "DELETE FROM tally WHERE team_id = ? AND account_id = ? RETURNING leg_id, distance_mm, runs", team, account)
        var distance: Int64 = 0
        var legs: [Int64: (mm: Int64, runs: Int64)] = [:]
        for row in rows {
            let mm = try row.int("distance_mm")
            distance += mm
            if let leg = try row.intOrNil("leg_id") {
                legs[leg, default: (0, 0)].mm += mm
                legs[leg, default: (0, 0)].runs += try row.int("runs")
            }
        }
        for (leg, sum) in legs.sorted(by: { $0.key < $1.key }) {
            try await db.query(
                "UPDATE leg SET distance_mm = distance_mm + ?, runs = runs + ? WHERE id = ?", sum.mm, sum.runs, leg)
        }
        return distance
    }

    /// Folds pending rows into the stored totals, at most `rollUpBatch` a transaction, and returns
    /// how many it folded: one batch, or with `all` batches until none is left (waiting for
    /// another instance's roll-up rather than skipping). The roller calls it; tests call it with
    /// `all` to check the stored totals.
    @discardableResult
    func rollUp(all: Bool = false) async throws -> Int {
        let dialect = database.dialect
        var folded = 0
        repeat {
            guard try await read({ db in try await db.one("SELECT id FROM tally LIMIT 1") != nil }) else { break }
            if let rows = try await write({ db in try await Self.rollUpBatch(db, dialect) }) {
                folded += rows
            } else if all {
                try await Task.sleep(for: .milliseconds(5))
            }
        } while all
        return folded
    }

    /// One roll-up transaction; nil when another instance holds the roll-up lock. The batch's rows
    /// are marked first, so every statement after folds the same rows, whatever commits meanwhile.
    private static func rollUpBatch(_ db: any SQLSession, _ dialect: SQLDialect) async throws -> Int? {
        if dialect == .postgres {
            guard try await db.one("SELECT pg_try_advisory_xact_lock(\(rollUpLock)) AS got")?.int("got") == 1 else {
                return nil
            }
        }
        let batch = Int64.random(in: 1...Int64.max)
        let marked = try await db.query(
            """
            UPDATE tally SET batch = ?
            WHERE id IN (SELECT id FROM tally WHERE batch IS NULL ORDER BY id LIMIT ?) RETURNING id
            """, batch, rollUpBatch
        ).count
        guard marked > 0 else { return 0 }
        try await db.query(
            """
            UPDATE leg SET distance_mm = leg.distance_mm + d.mm, runs = leg.runs + d.n
            FROM (SELECT leg_id, CAST(sum(distance_mm) AS BIGINT) AS mm, CAST(sum(runs) AS BIGINT) AS n FROM tally
                WHERE batch = ? AND leg_id IS NOT NULL GROUP BY leg_id) AS d
            WHERE leg.id = d.leg_id
            """, batch)
        try await db.query(
            """
            UPDATE team SET total_mm = team.total_mm + d.mm
            FROM (SELECT team_id, CAST(sum(distance_mm) AS BIGINT) AS mm FROM tally WHERE batch = ? GROUP BY team_id) AS d
            WHERE team.id = d.team_id
            """, batch)
        try await db.query(
            """
            UPDATE member SET distance_mm = member.distance_mm + d.mm, runs = member.runs + d.n
            FROM (SELECT team_id, account_id, CAST(sum(distance_mm) AS BIGINT) AS mm, CAST(sum(runs) AS BIGINT) AS n
                FROM tally WHERE batch = ? GROUP BY team_id, account_id) AS d
            WHERE member.team_id = d.team_id AND member.account_id = d.account_id
            """, batch)
        try await db.query("DELETE FROM tally WHERE batch = ?", batch)
        return marked
    }
}
