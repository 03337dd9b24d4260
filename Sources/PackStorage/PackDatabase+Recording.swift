import GRDB
import HandoffModel

extension PackDatabase {
    /// Creates the session row when a run starts.
    public func beginSession(
        uuid: String, startMonotonic: MonotonicInstant, startWall: WallInstant, source: String,
        clockSource: ClockSource = .system
    ) throws -> SessionID {
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO session (uuid, state, source, start_wall_ns, start_mono_ns, clock_source)
                    VALUES (?, 'recording', ?, ?, ?, ?)
                    """,
                arguments: [
                    uuid, source, startWall.nanosecondsSinceEpoch, startMonotonic.nanoseconds, clockSource.rawValue,
                ])
            return SessionID(db.lastInsertedRowID)
        }
    }

    /// Writes a batch in one transaction: nothing of it, or all of it.
    public func commit(_ batch: SessionBatch) throws {
        guard !batch.isEmpty else { return }
        try writer.write { db in try self.write(batch, in: db) }
    }

    /// Writes a batch in one transaction on the database's own writer thread, suspending the
    /// caller instead of blocking it.
    public func commit(_ batch: SessionBatch) async throws {
        guard !batch.isEmpty else { return }
        try await writer.write { db in try self.write(batch, in: db) }
    }

    func write(_ batch: SessionBatch, in db: Database) throws {
        let session = batch.session.rawValue
        if !batch.points.isEmpty {
            let insert = try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO point (session_id, elapsed_s, lat, lon, alt_m, fix, hdop, speed_mps,
                        distance_m, hr_bpm, cadence_spm, moving, hr_sensor, footpod_sensor, gps_sensor, steps)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            var row = RawInsert(insert)
            for p in batch.points {
                row.bind(session)
                row.bind(p.elapsedSeconds)
                row.bind(p.latitude)
                row.bind(p.longitude)
                row.bind(p.altitudeMeters)
                row.bind(p.gpsFix.rawValue)
                row.bind(p.hdop)
                row.bind(p.speedMetersPerSecond)
                row.bind(p.distanceMeters)
                row.bind(p.heartRateBPM)
                row.bind(p.cadenceSPM)
                row.bind(p.isMoving)
                row.bind(try p.heartRateSensor.map { try sensorRow(db, $0, kind: .heartRate) })
                row.bind(try p.footpodSensor.map { try sensorRow(db, $0, kind: .footpod) })
                row.bind(try p.gpsSensor.map { try sensorRow(db, $0, kind: .gps) })
                row.bind(p.steps)
                try row.step(db)
            }
        }
        if !batch.rrIntervals.isEmpty {
            let insert = try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO rr_interval (session_id, sensor_id, offset_ns, seq, rr_1024)
                    VALUES (?, ?, ?, ?, ?)
                    """)
            for rr in batch.rrIntervals {
                let sensor = try sensorRow(db, rr.sensor, kind: .heartRate)
                var row = RawInsert(insert)
                for (seq, value) in rr.intervals1024ths.enumerated() {
                    row.bind(session)
                    row.bind(sensor)
                    row.bind(rr.offsetNanoseconds)
                    row.bind(seq)
                    row.bind(Int(value))
                    try row.step(db)
                }
            }
        }
        for event in batch.events {
            let sensor = try event.sensor.map { try sensorRow(db, $0, kind: .unknown) }
            try db.execute(
                sql: "INSERT INTO event (session_id, offset_ns, kind, sensor_id, detail) VALUES (?, ?, ?, ?, ?)",
                arguments: [session, event.offsetNanoseconds, event.kind.rawValue, sensor, event.detail])
        }
        for lap in batch.laps { try insert(lap, session: session, in: db) }
        if let wall = batch.correctedStartWall {
            // Points, events and laps are stored as offsets from the start: they move with it.
            try db.execute(
                sql: "UPDATE session SET start_wall_ns = ?, clock_source = 'gps' WHERE id = ?",
                arguments: [wall.nanosecondsSinceEpoch, session])
        }
        if let state = batch.state, state != .finished {
            try db.execute(sql: "UPDATE session SET state = ? WHERE id = ?", arguments: [state.rawValue, session])
        }
        if let finish = batch.finish {
            try finishSession(session, summary: finish.summary, wall: finish.wall, recovered: false, in: db)
        }
    }

    func insert(_ lap: Lap, session: Int64, in db: Database) throws {
        let s = lap.statistics
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO lap (session_id, lap_index, trigger, start_elapsed_s, end_elapsed_s, distance_m,
                    timer_s, moving_s, avg_hr_bpm, max_hr_bpm, avg_cadence_spm, max_speed_mps, point_count)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                session, lap.index, lap.trigger.rawValue, lap.startElapsedSeconds, lap.endElapsedSeconds,
                s.distanceMeters,
                s.timerSeconds, s.movingSeconds, s.averageHeartRate, s.maximumHeartRate, s.averageCadence,
                s.maximumSpeed, s.pointCount,
            ])
    }

    /// Stores the summary and splits, marks the session finished and queues it for upload.
    func finishSession(
        _ session: Int64, summary: RunSummary, wall: WallInstant, recovered: Bool, in db: Database
    ) throws {
        let s = summary.statistics
        try db.execute(
            sql: """
                UPDATE session SET state = 'finished', recovered = ?, elapsed_s = ?, timer_s = ?, moving_s = ?,
                    distance_m = ?, avg_hr_bpm = ?, max_hr_bpm = ?, avg_cadence_spm = ?, max_speed_mps = ?,
                    point_count = ?, steps = ?
                WHERE id = ?
                """,
            arguments: [
                recovered, summary.elapsedSeconds, s.timerSeconds, s.movingSeconds, s.distanceMeters,
                s.averageHeartRate,
                s.maximumHeartRate, s.averageCadence, s.maximumSpeed, s.pointCount, summary.steps, session,
            ])
        try db.execute(sql: "DELETE FROM split WHERE session_id = ?", arguments: [session])
        for split in summary.splits {
            try db.execute(
                sql: "INSERT INTO split (session_id, km, distance_m, seconds, avg_hr_bpm) VALUES (?, ?, ?, ?, ?)",
                arguments: [session, split.kilometer, split.distanceMeters, split.seconds, split.averageHeartRate])
        }
        try db.execute(
            sql: "INSERT OR IGNORE INTO outbox (session_id, enqueued_wall_ns) VALUES (?, ?)",
            arguments: [session, wall.nanosecondsSinceEpoch])
    }
}
