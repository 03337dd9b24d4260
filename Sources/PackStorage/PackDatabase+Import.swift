import GRDB
import HandoffModel

extension PackDatabase {
    /// Adds a finished run recorded elsewhere (an imported file), whole, in one transaction: the
    /// session, its points, RR intervals, events and laps, its summary and splits, and its place
    /// in the outbox. `source` says where it came from (`import:fit`).
    public func importRun(
        uuid: String, source: String, startWall: WallInstant, points: [RecordPoint], rrIntervals: [RRIntervalBatch],
        events: [SessionEvent], laps: [Lap], summary: RunSummary, now: WallInstant, sport: RunSport = .run
    ) throws -> SessionID {
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO session (uuid, state, source, start_wall_ns, start_mono_ns, clock_source, sport)
                    VALUES (?, 'recording', ?, ?, 0, 'system', ?)
                    """,
                arguments: [uuid, source, startWall.nanosecondsSinceEpoch, sport.rawValue])
            let session = SessionID(db.lastInsertedRowID)
            var batch = SessionBatch(session: session)
            batch.points = points
            batch.rrIntervals = rrIntervals
            batch.events = events
            batch.laps = laps
            batch.finish = SessionBatch.Finish(summary: summary, wall: now)
            try self.write(batch, in: db)
            return session
        }
    }

    /// A finished run that started within a second of `start`: the same run imported before,
    /// or the pack's own run coming back from an export.
    public func finishedRun(startingNear start: WallInstant) throws -> SessionID? {
        try writer.read { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT id FROM session WHERE state = 'finished' AND start_wall_ns BETWEEN ? AND ?
                    ORDER BY id LIMIT 1
                    """,
                arguments: [
                    start.nanosecondsSinceEpoch - nanosecondsPerSecond,
                    start.nanosecondsSinceEpoch + nanosecondsPerSecond,
                ]
            ).map(SessionID.init)
        }
    }
}
