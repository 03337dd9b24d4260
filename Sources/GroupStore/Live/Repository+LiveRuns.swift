import HandoffModel

/// Live runs, their points and their share links.
extension StoreRepository {
    private static let liveColumns = """
        live_run.*, account.username, account.run_visibility, account.map_visibility
        """

    static func liveRun(_ row: SQLRow) throws(SQLError) -> LiveRun {
        try LiveRun(
            id: row.int("id"), account: row.int("account_id"), runner: row.text("username"), uuid: row.text("uuid"),
            sport: row.text("sport"), started: WallInstant(nanosecondsSinceEpoch: row.int("started_ns")),
            contact: WallInstant(nanosecondsSinceEpoch: row.int("contact_ns")),
            ended: row.intOrNil("ended_ns").map { WallInstant(nanosecondsSinceEpoch: $0) },
            pointCount: Int(row.int("points")),
            audience: Self.audience(row.text("run_visibility"), row.text("map_visibility")))
    }

    /// Takes a pack's live update: the run is made at its first, each point kept once (a point
    /// sent again is not new), and the store's "last seen" moved to `now`. Refused once the run
    /// ended, or is on the store as a finished run.
    func liveUpdate(
        account: Int64, uuid: String, batch: LiveBatch, now: WallInstant
    ) async throws -> (accepted: Int, points: Int) {
        try await write { db in
            if try await db.one("SELECT 1 AS x FROM run WHERE uuid = ? AND account_id = ?", uuid, account) != nil {
                throw Self.liveEnded
            }
            var row = try await db.one(
                "SELECT id, ended_ns, points FROM live_run WHERE account_id = ? AND uuid = ?", account, uuid)
            if row == nil {
                // The runner's live runs from more than a week ago go as a new one starts.
                try await db.query(
                    "DELETE FROM live_run WHERE account_id = ? AND contact_ns < ?", account,
                    now.nanosecondsSinceEpoch - LiveRun.keptSeconds * 1_000_000_000)
                row = try await db.one(
                    """
                    INSERT INTO live_run (account_id, uuid, sport, started_ns, contact_ns) VALUES (?, ?, ?, ?, ?)
                    RETURNING id, ended_ns, points
                    """, account, uuid, batch.sport, batch.started.nanosecondsSinceEpoch, now.nanosecondsSinceEpoch)
            }
            guard let row else { throw Self.liveEnded }
            guard try row.intOrNil("ended_ns") == nil else { throw Self.liveEnded }
            let id = try row.int("id")
            let before = Int(try row.int("points"))
            guard before + batch.samples.count <= LiveRun.pointsPerRun else {
                throw StoreError(
                    .conflict, "live_full",
                    "this live run has its \(LiveRun.pointsPerRun) points: the rest of it shows once the run is uploaded"
                )
            }
            var accepted = 0
            for sample in batch.samples {
                let inserted = try await db.one(
                    """
                    INSERT INTO live_point (live_run_id, elapsed_s, at_ns, lat_e7, lon_e7, distance_mm, speed_mmps,
                        heart_rate)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (live_run_id, elapsed_s) DO NOTHING RETURNING elapsed_s
                    """, id, Int64(sample.elapsed), sample.at.nanosecondsSinceEpoch, sample.latE7, sample.lonE7,
                    sample.distanceMM, sample.speedMMPS, sample.heartRate.map(Int64.init))
                if inserted != nil { accepted += 1 }
            }
            // The start moves when the pack's clock was corrected by GPS during the run.
            try await db.query(
                """
                UPDATE live_run SET contact_ns = ?, points = points + ?, started_ns = ?, sport = ?,
                    ended_ns = CASE WHEN ? = 1 THEN ? ELSE ended_ns END
                WHERE id = ?
                """, now.nanosecondsSinceEpoch, Int64(accepted), batch.started.nanosecondsSinceEpoch, batch.sport,
                Int64(batch.ended ? 1 : 0), now.nanosecondsSinceEpoch, id)
            return (accepted, before + accepted)
        }
    }

    static let liveEnded = StoreError(
        .conflict, "live_ended",
        "this run's live tracking has ended (its last update came, or the run is uploaded): its page shows the whole run"
    )

    /// The run's live tracking ends with its upload (best effort, after the upload's commit).
    func endLiveRun(account: Int64, uuid: String, now: WallInstant) async {
        _ = try? await write { db in
            try await db.query(
                "UPDATE live_run SET ended_ns = ? WHERE account_id = ? AND uuid = ? AND ended_ns IS NULL",
                now.nanosecondsSinceEpoch, account, uuid)
        }
    }

    func liveRun(account: Int64, uuid: String) async throws -> LiveRun? {
        try await read { db in
            try await db.one(
                """
                SELECT \(Self.liveColumns) FROM live_run JOIN account ON account.id = live_run.account_id
                WHERE live_run.account_id = ? AND live_run.uuid = ?
                """, account, uuid
            ).map(Self.liveRun)
        }
    }

    /// The person's live run going on at `now` (the latest heard of, not over), if any.
    func currentLiveRun(account: Int64, now: WallInstant) async throws -> LiveRun? {
        try await read { db in
            try await db.one(
                """
                SELECT \(Self.liveColumns) FROM live_run JOIN account ON account.id = live_run.account_id
                WHERE live_run.account_id = ? AND live_run.ended_ns IS NULL AND live_run.contact_ns >= ?
                ORDER BY live_run.contact_ns DESC LIMIT 1
                """, account, now.nanosecondsSinceEpoch - LiveRun.givenUpAfterSeconds * 1_000_000_000
            ).map(Self.liveRun)
        }
    }

    func livePoints(_ run: LiveRun) async throws -> [LiveSample] {
        try await read { db in
            try await db.query("SELECT * FROM live_point WHERE live_run_id = ? ORDER BY elapsed_s", run.id).map { row in
                LiveSample(
                    elapsed: Int(try row.int("elapsed_s")),
                    at: WallInstant(nanosecondsSinceEpoch: try row.int("at_ns")),
                    latE7: try row.intOrNil("lat_e7"), lonE7: try row.intOrNil("lon_e7"),
                    distanceMM: try row.int("distance_mm"), speedMMPS: try row.intOrNil("speed_mmps"),
                    heartRate: try row.intOrNil("heart_rate").map { Int($0) })
            }
        }
    }

    /// The baton holder's live run in a group, for a member: nil when nobody holds the baton,
    /// the holder is not live, or either of the two blocked the other.
    func holderLiveRun(team: Int64, viewer: Int64, now: WallInstant) async throws -> LiveRun? {
        let holder: Int64? = try await read { db in
            _ = try await Self.memberGroup(db, team, viewer)
            guard let holder = try await Self.baton(db, team, now: now).holderID else { return nil }
            if holder != viewer,
                try await db.one(
                    """
                    SELECT 1 AS x FROM block WHERE (blocker_id = ? AND blocked_id = ?) OR (blocker_id = ? AND blocked_id = ?)
                    """, holder, viewer, viewer, holder) != nil
            {
                return nil
            }
            return holder
        }
        guard let holder else { return nil }
        return try await currentLiveRun(account: holder, now: now)
    }

    // MARK: Share links

    /// A new share link to the run: its number and its token (kept only as its SHA-256).
    func createLiveLink(_ run: LiveRun, expires: WallInstant?, now: WallInstant) async throws -> (Int64, String) {
        let token = AccountService.randomToken()
        let id = try await write { db in
            try await db.one(
                "INSERT INTO live_link (live_run_id, token_hash, created_ns, expires_ns) VALUES (?, ?, ?, ?) RETURNING id",
                run.id, AccountService.digest(token), now.nanosecondsSinceEpoch, expires?.nanosecondsSinceEpoch
            )!.int("id")
        }
        return (id, token)
    }

    struct LiveLink: Sendable, Equatable {
        var id: Int64
        var created: WallInstant
        var expires: WallInstant?
    }

    /// The run's links still in force at `now`, newest first.
    func liveLinks(_ run: LiveRun, now: WallInstant) async throws -> [LiveLink] {
        try await read { db in
            try await db.query(
                """
                SELECT id, created_ns, expires_ns FROM live_link
                WHERE live_run_id = ? AND revoked_ns IS NULL AND (expires_ns IS NULL OR expires_ns > ?) ORDER BY id DESC
                """, run.id, now.nanosecondsSinceEpoch
            ).map { row in
                LiveLink(
                    id: try row.int("id"), created: WallInstant(nanosecondsSinceEpoch: try row.int("created_ns")),
                    expires: try row.intOrNil("expires_ns").map { WallInstant(nanosecondsSinceEpoch: $0) })
            }
        }
    }

    /// Revokes one of the person's links; false when they have no such link.
    func revokeLiveLink(_ id: Int64, account: Int64, now: WallInstant) async throws -> Bool {
        try await write { db in
            try await db.one(
                """
                UPDATE live_link SET revoked_ns = ? WHERE id = ? AND revoked_ns IS NULL
                    AND live_run_id IN (SELECT id FROM live_run WHERE account_id = ?) RETURNING id
                """, now.nanosecondsSinceEpoch, id, account) != nil
        }
    }

    /// The run a share link shows at `now`; nil when the token is unknown, revoked or expired,
    /// or its run is over.
    func liveRun(token: String, now: WallInstant) async throws -> LiveRun? {
        let run = try await read { db in
            try await db.one(
                """
                SELECT \(Self.liveColumns) FROM live_link JOIN live_run ON live_run.id = live_link.live_run_id
                JOIN account ON account.id = live_run.account_id
                WHERE live_link.token_hash = ? AND live_link.revoked_ns IS NULL
                    AND (live_link.expires_ns IS NULL OR live_link.expires_ns > ?)
                """, AccountService.digest(token), now.nanosecondsSinceEpoch
            ).map(Self.liveRun)
        }
        guard let run, !run.isOver(at: now) else { return nil }
        return run
    }
}
