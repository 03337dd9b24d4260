import HandoffModel
import Hummingbird

let runColumns =
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
        let stored: (StoredRun, [RunCount], [RunNotCounted], created: Bool) = try await write { db in
            try await Self.holdPerson(db, account)
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
            // An entry made by hand has no file.
            if !run.file.isEmpty {
                try await db.query("INSERT INTO run_file (run_id, file) VALUES (?, ?)", stored.id, run.file)
            }
            if let facts = run.facts?.bytes {
                try await db.query(
                    "INSERT INTO run_facts (run_id, version, facts) VALUES (?, ?, ?)", stored.id,
                    RunFacts.currentVersion, facts)
            }
            // An entry by hand has no track to look inside; a test's run has no facts (then its
            // file is read for them when records are first asked for).
            if run.facts != nil || run.format == ManualEntry.format {
                try await Self.keepDerived(db, stored, run.facts?.derived ?? RunDerived())
            }
            try await Self.summarise(db, stored)
            if let group = run.batonClaim {
                try await Self.reconcileClaim(db, stored, group: group, now: now)
            }
            try await Self.count(db, stored, now: now)
            try await Self.beforeRunCommit?(db)
            return (stored, try await Self.counts(db, stored.id), try await Self.notCounted(db, stored), true)
        }
        if stored.created { await recordCounted(stored.0, stored.1, now: now) }
        // Its live tracking, if it had any, ends with the upload (its share links with it).
        await endLiveRun(account: account, uuid: run.uuid, now: now)
        return stored
    }

    /// Each group a new run counted in hears of it (`run_counted`, with the group's total as it
    /// now is, then `goal_reached` when that total has just reached the goal), in a transaction of its own after the run's: an event takes its number from the
    /// group's baton row, and holding that row for the whole upload would make concurrent uploads
    /// to one group wait for each other. Best effort: should this fail (or the store stop between
    /// the two), the run is stored and counted all the same, and a page shows it when next loaded.
    private func recordCounted(_ run: StoredRun, _ counts: [RunCount], now: WallInstant) async {
        guard !counts.isEmpty else { return }
        _ = try? await write { db in
            for count in counts.sorted(by: { $0.groupID < $1.groupID }) {
                let total = try await Self.group(db, count.groupID)?.totalMM
                try await Self.recordEvent(
                    db, team: count.groupID, kind: "run_counted", now: now, runner: run.accountID,
                    distanceMM: count.distanceMM, totalMM: total)
                if let total, try await Self.goalJustReached(db, team: count.groupID, totalMM: total) {
                    try await Self.recordEvent(
                        db, team: count.groupID, kind: "goal_reached", now: now, runner: run.accountID,
                        distanceMM: count.distanceMM, totalMM: total)
                }
            }
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

    /// In a group that passes the baton by itself, a run arriving in the holder's open leg ends
    /// the leg (`passed`, at the upload) and hands the baton to the next member in the rotation.
    static func autoPass(
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
        try await recordEvent(db, team: team, kind: "baton_passed", now: now, from: holder)
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
            try await recordEvent(db, team: group, kind: "baton_taken", now: now)
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
            try await Self.holdPerson(db, account)
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
            if run.audience.run != stored.audience.run {
                try await Self.summarise(db, stored)
                try await Self.summarise(db, run)
            }
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

    /// The run's file, or nil for an entry made by hand.
    func runFileIfAny(uuid: String, account: Int64) async throws -> (format: String, bytes: [UInt8])? {
        do {
            return try await runFile(uuid: uuid, account: account)
        } catch let error as StoreError where error.code == "no_file" {
            return nil
        }
    }

    func runFile(uuid: String, account: Int64) async throws -> (format: String, bytes: [UInt8]) {
        try await read { db in
            guard
                let row = try await db.one(
                    """
                    SELECT run.format, run_file.file FROM run LEFT JOIN run_file ON run_file.run_id = run.id
                    WHERE run.uuid = ? AND run.account_id = ?
                    """, uuid, account)
            else { throw StoreError.notFound("run", uuid) }
            let format = try row.text("format")
            guard format != ManualEntry.format else {
                throw StoreError(
                    .notFound, "no_file", "the run \(uuid) was entered by hand: it has no file to download")
            }
            return (format, try row.blob("file"))
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
            try await Self.holdPerson(db, account)
            guard
                let row = try await db.one(
                    "SELECT \(runColumns) FROM run WHERE uuid = ? AND account_id = ?", uuid, account)
            else { throw StoreError.notFound("run", uuid) }
            let run = try StoredRun(row)
            let id = run.id
            // Where it counted, as this statement deletes it: a row that a member leaving at the
            // same moment took along (into former members' distance) is not taken away twice.
            let counted = try await db.query(
                "DELETE FROM run_team WHERE run_id = ? RETURNING team_id, leg_id, distance_mm", id)
            try await Self.tallyUncounted(db, counted, account: account)
            try await db.query("DELETE FROM run WHERE id = ?", id)
            try await Self.summarise(db, run)
        }
    }
}
