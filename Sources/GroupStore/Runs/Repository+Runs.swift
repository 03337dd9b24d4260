import HandoffModel
import Hummingbird

private let runColumns =
    "id, uuid, account_id, started_ns, elapsed_ms, timer_ms, distance_mm, sport, format, sha256, size, summary, uploaded_ns, heart_rate_avg, visibility, map_visibility"

extension StoreRepository {
    /// The run's columns, each named with its table, for queries that join others.
    static let runColumnsQualified = runColumns.split(separator: ",").map {
        "run." + $0.trimmingCharacters(in: .whitespaces)
    }.joined(separator: ", ")

    /// Stores a run and adds it to every total it counts toward, in one transaction. The same
    /// uuid with the same file returns the stored run (`created` false); with another file, or
    /// from another account, it is the same 409.
    func putRun(
        _ run: NewRun, account: Int64, now: WallInstant
    ) async throws -> (StoredRun, [RunCount], [RunNotCounted], created: Bool) {
        try await write { db in
            if let existing = try await Self.sameRun(db, run, account: account) {
                return (
                    existing, try await Self.counts(db, existing.id), try await Self.notCounted(db, existing), false
                )
            }
            let inserted = try await db.one(
                """
                INSERT INTO run (uuid, account_id, started_ns, elapsed_ms, timer_ms, distance_mm, sport, format, sha256,
                    size, summary, uploaded_ns, heart_rate_avg, thumbnail, visibility, map_visibility)
                SELECT ?, id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, run_visibility, map_visibility FROM account WHERE id = ?
                ON CONFLICT (uuid) DO NOTHING RETURNING \(runColumns)
                """, run.uuid, run.started.nanosecondsSinceEpoch, run.elapsedMS, run.timerMS, run.distanceMM,
                run.sport, run.format, run.sha256, run.file.count, run.summary, now.nanosecondsSinceEpoch,
                run.averageHeartRate, run.facts?.thumbnail, account)
            guard let inserted else {
                // A concurrent upload of the same uuid committed first (PostgreSQL waits for it).
                guard let existing = try await Self.sameRun(db, run, account: account) else {
                    throw StoreError(
                        .conflict, "run_conflict", "this run is being uploaded at the same moment: try again")
                }
                return (
                    existing, try await Self.counts(db, existing.id), try await Self.notCounted(db, existing), false
                )
            }
            let stored = try StoredRun(inserted)
            // In a table of its own, read only when the file is asked for (Schema, version 5).
            try await db.query("INSERT INTO run_file (run_id, file) VALUES (?, ?)", stored.id, run.file)
            if let facts = run.facts?.bytes {
                try await db.query(
                    "INSERT INTO run_facts (run_id, version, facts) VALUES (?, ?, ?)", stored.id,
                    RunFacts.currentVersion, facts)
            }
            if let group = run.batonClaim {
                try await Self.reconcileClaim(db, stored, group: group, now: now)
            }
            try await Self.count(db, stored, now: now)
            try await Self.beforeRunCommit?(db)
            return (stored, try await Self.counts(db, stored.id), try await Self.notCounted(db, stored), true)
        }
    }

    /// A test hook, nil in production: runs inside a new run's transaction, with its session, once
    /// the run is stored and counted, before the commit, so a test can hold an upload open there.
    @TaskLocal static var beforeRunCommit: (@Sendable (any SQLSession) async throws -> Void)?

    /// The stored run with this uuid when it is the same upload; a 409 when the uuid is taken by
    /// anything else: another file of this account or any run of another account get the same
    /// answer, word for word, so it tells nothing of whose the uuid is (docs/group-store.md,
    /// "Who may do what").
    private static func sameRun(_ db: any SQLSession, _ run: NewRun, account: Int64) async throws -> StoredRun? {
        guard let row = try await db.one("SELECT \(runColumns) FROM run WHERE uuid = ?", run.uuid) else { return nil }
        let existing = try StoredRun(row)
        guard existing.accountID == account, existing.sha256 == run.sha256 else { throw uuidTaken(run.uuid) }
        return existing
    }

    static func uuidTaken(_ uuid: String) -> StoreError {
        StoreError(
            .conflict, "run_conflict",
            "another file is stored under \(uuid): give this run a new uuid (if the stored run is yours and wrong, delete it first)"
        )
    }

    /// Adds the run to each group of its runner that it counts toward: one the runner had
    /// joined when the run started, before the group's deadline. Run while holding the baton, it
    /// is part of that relay leg. The totals get a tally row each (Groups/Tally.swift): no shared
    /// row is updated, so concurrent uploads to one group do not wait for one another.
    private static func count(_ db: any SQLSession, _ run: StoredRun, now: WallInstant) async throws {
        let start = run.started.nanosecondsSinceEpoch
        let teams = try await db.query(
            """
            SELECT team.id FROM team JOIN member ON member.team_id = team.id
            WHERE member.account_id = ? AND member.joined_ns <= ?
            AND (team.deadline_ns IS NULL OR team.deadline_ns > ?)
            """, run.accountID, start, start)
        for team in try teams.map({ try $0.int("id") }) {
            let leg = try await db.one(
                """
                SELECT id FROM leg WHERE team_id = ? AND account_id = ? AND taken_ns <= ?
                AND (ended_ns IS NULL OR ended_ns > ?) ORDER BY taken_ns DESC LIMIT 1
                """, team, run.accountID, start, start)?.int("id")
            try await db.query(
                "INSERT INTO run_team (run_id, team_id, leg_id, distance_mm) VALUES (?, ?, ?, ?)", run.id, team, leg,
                run.distanceMM)
            if let leg {
                try await autoPass(db, team: team, leg: leg, holder: run.accountID, now: now)
            }
        }
        try await tallyCounted(db, run: run.id, account: run.accountID)
    }

    /// In a group that passes the baton by itself, a run arriving in the holder's open leg ends
    /// the leg (`passed`, at the upload) and hands the baton to the next member in the rotation.
    private static func autoPass(
        _ db: any SQLSession, team: Int64, leg: Int64, holder: Int64, now: WallInstant
    ) async throws {
        guard
            try await db.one(
                """
                SELECT team.id FROM team JOIN baton ON baton.team_id = team.id
                WHERE team.id = ? AND team.auto_pass <> 0 AND baton.leg_id = ? AND baton.holder_id = ?
                AND baton.expires_ns > ?
                """, team, leg, holder, now.nanosecondsSinceEpoch) != nil
        else { return }
        guard let next = try await nextInRotation(db, team: team, after: holder) else { return }
        try await endLeg(db, team: team, holder: holder, at: now.nanosecondsSinceEpoch, how: "passed", to: next)
        let group = try await Self.group(db, team)!
        _ = try await hand(db, group, to: next, now: now)
    }

    /// An offline claim on the baton, settled as the run arrives. The claim is accepted when
    /// nobody held the group's baton at any moment of the run (no leg overlaps it, the current
    /// holder's included) and the run counts in the group; the run then becomes a relay leg.
    /// If the baton is still free and nobody has taken it since the run ended, the runner holds it
    /// from the run's start (its lease from now), as if they had taken it online, and can pass
    /// it on; otherwise the leg ends with the run (`offline`). A refused claim leaves the run
    /// solo: it still counts toward every total, just not as a leg. The first upload wins, so
    /// two packs claiming overlapping windows get one leg between them.
    private static func reconcileClaim(
        _ db: any SQLSession, _ run: StoredRun, group: Int64, now: WallInstant
    ) async throws {
        let start = run.started.nanosecondsSinceEpoch
        let end = start + run.elapsedMS * 1_000_000
        guard
            let team = try await db.one(
                """
                SELECT team.id, team.lease_s FROM team JOIN member ON member.team_id = team.id
                WHERE team.id = ? AND member.account_id = ? AND member.joined_ns <= ?
                AND (team.deadline_ns IS NULL OR team.deadline_ns > ?)
                """, group, run.accountID, start, start)
        else { return }
        try await closeExpired(db, group, now: now)
        let overlapping = try await db.one(
            """
            SELECT id FROM leg WHERE team_id = ? AND taken_ns < ? AND (ended_ns IS NULL OR ended_ns > ?) LIMIT 1
            """, group, end, start)
        guard overlapping == nil else { return }
        let later = try await db.one(
            "SELECT id FROM leg WHERE team_id = ? AND taken_ns >= ? LIMIT 1", group, end)
        let free =
            try await db.one(
                "SELECT team_id FROM baton WHERE team_id = ? AND holder_id IS NULL", group) != nil
        if free && later == nil {
            // The lease runs from now, or from the start when a device's clock ran a little ahead,
            // so the leg never starts after its lease ends.
            let leg = try await db.one(
                "INSERT INTO leg (team_id, account_id, taken_ns) VALUES (?, ?, ?) RETURNING id", group, run.accountID,
                start)!
            let lease = try team.int("lease_s")
            try await db.query(
                """
                UPDATE baton SET holder_id = ?, leg_id = ?, since_ns = ?, expires_ns = ?
                WHERE team_id = ? AND holder_id IS NULL
                """, run.accountID, try leg.int("id"), start,
                max(start, now.nanosecondsSinceEpoch) + lease * nanosecondsPerSecond, group)
        } else {
            try await db.query(
                "INSERT INTO leg (team_id, account_id, taken_ns, ended_ns, ended_how) VALUES (?, ?, ?, ?, 'offline')",
                group, run.accountID, start, end)
        }
    }

    static func counts(_ db: any SQLSession, _ run: Int64) async throws -> [RunCount] {
        try await db.query(
            """
            SELECT run_team.*, team.name FROM run_team JOIN team ON team.id = run_team.team_id
            WHERE run_team.run_id = ? ORDER BY run_team.team_id
            """, run
        ).map(runCount)
    }

    /// The runner's groups that the run does not count in, each with the rule that kept it out:
    /// the same rules as `count`, read against the membership as it is now, so a repeated upload
    /// gets the same answer as the first (or a newer one, when the runner joined a group since).
    static func notCounted(_ db: any SQLSession, _ run: StoredRun) async throws -> [RunNotCounted] {
        let start = run.started.nanosecondsSinceEpoch
        return try await db.query(
            """
            SELECT team.id, team.name, team.deadline_ns, member.joined_ns FROM team
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
            } else {
                reason = .notCounted
            }
            return RunNotCounted(groupID: try row.int("id"), groupName: try row.text("name"), reason: reason)
        }
    }

    static func runCount(_ row: SQLRow) throws(SQLError) -> RunCount {
        try RunCount(
            groupID: row.int("team_id"), groupName: row.text("name"), legID: row.intOrNil("leg_id"),
            distanceMM: row.int("distance_mm"))
    }

    /// The account's runs, newest first, with where each counted.
    /// Where a page of runs ends: its last run's start and id. The next page starts after it, so
    /// runs that share a start time are neither skipped nor repeated at a page boundary.
    struct RunCursor: Sendable, Equatable {
        let started: Int64
        let id: Int64

        init(started: Int64, id: Int64) {
            self.started = started
            self.id = id
        }

        /// "STARTED_NS.ID", opaque to clients.
        init?(_ text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let started = Int64(parts[0]), let id = Int64(parts[1]) else { return nil }
            self.init(started: started, id: id)
        }

        var text: String { "\(started).\(id)" }

        /// The request's `cursor`, a previous page's `next_cursor`; a 422 for any other text.
        static func query(_ request: Request) throws(StoreError) -> RunCursor? {
            guard let text = request.uri.queryParameters["cursor"].map(String.init) else { return nil }
            guard let cursor = RunCursor(text) else {
                throw StoreError(
                    .unprocessableContent, "invalid_cursor",
                    "cursor is the next_cursor of a previous page, as it was given")
            }
            return cursor
        }
    }

    /// A page of the account's runs, newest start first, with where each counted, and the cursor
    /// of the next page when there may be one. `after` continues a page; `before` starts at a time.
    func runs(
        account: Int64, limit: Int, before: WallInstant?, after cursor: RunCursor?
    ) async throws -> (
        runs: [(StoredRun, [RunCount])], next: RunCursor?
    ) {
        let from = cursor ?? RunCursor(started: before?.nanosecondsSinceEpoch ?? Int64.max, id: 0)
        return try await read { db in
            let rows = try await db.query(
                """
                SELECT \(runColumns) FROM run
                WHERE account_id = ? AND (started_ns < ? OR (started_ns = ? AND id < ?))
                ORDER BY started_ns DESC, id DESC LIMIT ?
                """, account, from.started, from.started, cursor == nil ? 0 : from.id, limit + 1
            ).map(StoredRun.init)
            let runs = Array(rows.prefix(limit))
            var counts: [Int64: [RunCount]] = [:]
            if !runs.isEmpty {
                let marks = Array(repeating: "?", count: runs.count).joined(separator: ", ")
                for row in try await db.query(
                    """
                    SELECT run_team.*, team.name FROM run_team JOIN team ON team.id = run_team.team_id
                    WHERE run_team.run_id IN (\(marks)) ORDER BY run_team.team_id
                    """, runs.map { SQLValue.integer($0.id) })
                {
                    try counts[row.int("run_id"), default: []].append(Self.runCount(row))
                }
            }
            let next =
                rows.count > limit
                ? runs.last.map { RunCursor(started: $0.started.nanosecondsSinceEpoch, id: $0.id) } : nil
            return (runs.map { ($0, counts[$0.id] ?? []) }, next)
        }
    }

    /// One of the account's runs, where it counted and where not; another account's run is "not found".
    func run(uuid: String, account: Int64) async throws -> (StoredRun, [RunCount], [RunNotCounted]) {
        try await read { db in
            guard
                let row = try await db.one(
                    "SELECT \(runColumns) FROM run WHERE uuid = ? AND account_id = ?", uuid, account)
            else { throw StoreError.notFound("run", uuid) }
            let run = try StoredRun(row)
            return (run, try await Self.counts(db, run.id), try await Self.notCounted(db, run))
        }
    }

    /// Sets who sees the account's run and its map (nil: as it is).
    func setAudience(
        uuid: String, account: Int64, run: RunVisibility?, map: RunVisibility?
    ) async throws -> (StoredRun, [RunCount], [RunNotCounted]) {
        try await write { db in
            guard
                let row = try await db.one(
                    "SELECT \(runColumns) FROM run WHERE uuid = ? AND account_id = ?", uuid, account)
            else { throw StoreError.notFound("run", uuid) }
            let stored = try StoredRun(row)
            let audience = try RunVisibility.audience(run: run, map: map, current: stored.audience)
            guard
                let updated = try await db.one(
                    "UPDATE run SET visibility = ?, map_visibility = ? WHERE id = ? RETURNING \(runColumns)",
                    audience.run.rawValue, audience.map.rawValue, stored.id)
            else { throw StoreError.notFound("run", uuid) }
            let run = try StoredRun(updated)
            return (run, try await Self.counts(db, run.id), try await Self.notCounted(db, run))
        }
    }

    /// How many runs the account has, and their files' bytes.
    func storedSize(account: Int64) async throws -> (runs: Int, bytes: Int) {
        try await read { db in
            let row = try await db.one(
                "SELECT count(*) AS n, CAST(coalesce(sum(size), 0) AS BIGINT) AS bytes FROM run WHERE account_id = ?",
                account)
            return (Int(try row?.int("n") ?? 0), Int(try row?.int("bytes") ?? 0))
        }
    }

    /// The uuid of the account's run stored with exactly these bytes (their SHA-256), if any.
    func runUUID(account: Int64, sha256: String) async throws -> String? {
        try await read { db in
            try await db.one("SELECT uuid FROM run WHERE account_id = ? AND sha256 = ? LIMIT 1", account, sha256)
                .map { try $0.text("uuid") }
        }
    }

    func runFile(uuid: String, account: Int64) async throws -> (format: String, bytes: [UInt8]) {
        try await read { db in
            guard
                let row = try await db.one(
                    """
                    SELECT run.format, run_file.file FROM run JOIN run_file ON run_file.run_id = run.id
                    WHERE run.uuid = ? AND run.account_id = ?
                    """, uuid, account)
            else { throw StoreError.notFound("run", uuid) }
            return (try row.text("format"), try row.blob("file"))
        }
    }

    /// Keeps facts computed again from the run's file, in place of any older ones.
    func keepRunFacts(
        uuid: String, account: Int64, version: Int, facts: [UInt8], thumbnail: String?
    ) async throws {
        try await write { db in
            guard let row = try await db.one("SELECT id FROM run WHERE uuid = ? AND account_id = ?", uuid, account)
            else { return }  // deleted meanwhile
            try await db.query(
                """
                INSERT INTO run_facts (run_id, version, facts) VALUES (?, ?, ?)
                ON CONFLICT (run_id) DO UPDATE SET version = excluded.version, facts = excluded.facts
                """, try row.int("id"), version, facts)
            try await db.query("UPDATE run SET thumbnail = ? WHERE id = ?", thumbnail, try row.int("id"))
        }
    }

    /// Deletes a run and takes its distance out of every total it was in.
    func deleteRun(uuid: String, account: Int64) async throws {
        try await write { db in
            guard let row = try await db.one("SELECT id FROM run WHERE uuid = ? AND account_id = ?", uuid, account)
            else { throw StoreError.notFound("run", uuid) }
            let id = try row.int("id")
            // Where it counted, as this statement deletes it: a row that a member leaving at the
            // same moment took along (into former members' distance) is not taken away twice.
            let counted = try await db.query(
                "DELETE FROM run_team WHERE run_id = ? RETURNING team_id, leg_id, distance_mm", id)
            try await Self.tallyUncounted(db, counted, account: account)
            try await db.query("DELETE FROM run WHERE id = ?", id)
        }
    }
}
