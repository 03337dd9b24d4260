import GRDB
import HandoffModel

/// A recorded run as `handoff runs` and `handoff show` list it.
/// Where a session's wall-clock times came from.
public enum ClockSource: String, Hashable, Sendable {
    /// The system clock, synchronised (NTP or a real-time clock).
    case system
    /// GPS time: the system clock was not synchronised.
    case gps
    /// The system clock while it was not synchronised, and no GPS time came: may be wrong.
    case unsynchronized
}

public struct RunRecord: Hashable, Sendable {
    public var id: SessionID
    public var uuid: String
    public var state: SessionState
    /// `live`, or the capture a replay came from.
    public var source: String
    public var startWall: WallInstant
    /// Where `startWall` came from.
    public var clockSource: ClockSource
    /// Finished by recovery after a crash or power cut.
    public var recovered: Bool
    /// For a finished run; `nil` while it is being recorded.
    public var summary: RunSummary?
    /// Whether the run is waiting in the outbox, and since when it was uploaded (if it was).
    public var queuedForUpload: Bool
    public var sport: RunSport = .run
}

extension PackDatabase {
    /// Runs, newest start first (not newest row: an imported run, or one whose start GPS time
    /// corrected, takes its place by when it was run).
    public func runs(limit: Int = 100) throws -> [RunRecord] {
        try writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT session.*, outbox.session_id IS NOT NULL AND outbox.synced_wall_ns IS NULL AS queued
                    FROM session LEFT JOIN outbox ON outbox.session_id = session.id
                    ORDER BY session.start_wall_ns DESC, session.id DESC LIMIT ?
                    """, arguments: [limit]
            ).map { try record(from: $0, splits: []) }
        }
    }

    /// One run with its splits.
    public func run(_ id: SessionID) throws -> RunRecord? {
        try writer.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT session.*, outbox.session_id IS NOT NULL AND outbox.synced_wall_ns IS NULL AS queued
                        FROM session LEFT JOIN outbox ON outbox.session_id = session.id WHERE session.id = ?
                        """, arguments: [id.rawValue])
            else { return nil }
            return try record(from: row, splits: splits(of: id, in: db))
        }
    }

    /// Finds a run by `last`, its number, or a prefix of its UUID (at least 4 characters).
    public func resolveRun(_ reference: String) throws -> SessionID? {
        try writer.read { db in
            if reference == "last" || reference == "latest" {
                return try Int64.fetchOne(db, sql: "SELECT max(id) FROM session").map(SessionID.init)
            }
            if let number = Int64(reference) {
                return try Int64.fetchOne(db, sql: "SELECT id FROM session WHERE id = ?", arguments: [number])
                    .map(SessionID.init)
            }
            guard reference.count >= 4 else { return nil }
            let matches = try Int64.fetchAll(
                db, sql: "SELECT id FROM session WHERE uuid LIKE ? || '%' LIMIT 2", arguments: [reference.lowercased()])
            return matches.count == 1 ? SessionID(matches[0]) : nil
        }
    }

    public func points(of session: SessionID) throws -> [RecordPoint] {
        try writer.read { db in try points(of: session, in: db) }
    }

    public func events(of session: SessionID) throws -> [SessionEvent] {
        try writer.read { db in try events(of: session, in: db) }
    }

    public func laps(of session: SessionID) throws -> [Lap] {
        try writer.read { db in try laps(of: session, in: db) }
    }

    /// RR intervals in arrival order, exactly as stored.
    public func rrIntervals(of session: SessionID) throws -> [RRIntervalBatch] {
        try writer.read { db in
            var batches: [RRIntervalBatch] = []
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT sensor.key, offset_ns, rr_1024 FROM rr_interval JOIN sensor ON sensor.id = sensor_id
                    WHERE session_id = ? ORDER BY offset_ns, sensor.key, seq
                    """, arguments: [session.rawValue])
            {
                let sensor = SensorID(row[0] as String)
                let offset: Int64 = row[1]
                let value = UInt16(row[2] as Int)
                if let last = batches.last, last.sensor == sensor, last.offsetNanoseconds == offset {
                    batches[batches.count - 1].intervals1024ths.append(value)
                } else {
                    batches.append(
                        RRIntervalBatch(sensor: sensor, offsetNanoseconds: offset, intervals1024ths: [value]))
                }
            }
            return batches
        }
    }

    /// Deletes a run and everything recorded with it (points, RR intervals, laps, splits,
    /// events, its place in the outbox). Returns whether there was such a run. A run being
    /// recorded is the engine's to refuse: this deletes whatever it is given.
    @discardableResult
    public func deleteRun(_ session: SessionID) throws -> Bool {
        try writer.write { db in
            // The outbox has no cascade on purpose (nothing unsynced goes by accident): explicitly here.
            try db.execute(sql: "DELETE FROM outbox WHERE session_id = ?", arguments: [session.rawValue])
            try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [session.rawValue])
            return db.changesCount > 0
        }
    }

    /// Whether the store has acknowledged the run.
    public func isSynced(_ session: SessionID) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT synced_wall_ns IS NOT NULL FROM outbox WHERE session_id = ?",
                arguments: [session.rawValue]) ?? false
        }
    }

    /// How many finished runs wait for upload.
    public func outboxCount() throws -> Int {
        try writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE synced_wall_ns IS NULL") ?? 0
        }
    }

    // MARK: Row decoding

    func points(of session: SessionID, in db: Database) throws -> [RecordPoint] {
        // Columns by position: GRDB's lookup by name lower-cases each name for every row, which
        // cost more than the rest of reading a run (BENCHMARKS.md, "Runs going home").
        try Row.fetchAll(
            db,
            sql: """
                SELECT p.elapsed_s, p.distance_m, p.lat, p.lon, p.alt_m, p.fix, p.hdop, p.speed_mps, p.hr_bpm,
                    p.cadence_spm, p.moving, p.steps, h.key, f.key, g.key, p.cadence_rpm, b.key
                FROM point p
                LEFT JOIN sensor h ON h.id = p.hr_sensor LEFT JOIN sensor f ON f.id = p.footpod_sensor
                LEFT JOIN sensor g ON g.id = p.gps_sensor LEFT JOIN sensor b ON b.id = p.bike_sensor
                WHERE p.session_id = ? ORDER BY p.elapsed_s
                """, arguments: [session.rawValue]
        ).map { row in
            var point = RecordPoint(elapsedSeconds: row[0], distanceMeters: row[1])
            point.latitude = row[2]
            point.longitude = row[3]
            point.altitudeMeters = row[4]
            point.gpsFix = GPSFixMode(rawValue: row[5] as Int) ?? .none
            point.hdop = row[6]
            point.speedMetersPerSecond = row[7]
            point.heartRateBPM = row[8]
            point.cadenceSPM = row[9]
            point.isMoving = row[10]
            point.steps = row[11]
            point.heartRateSensor = (row[12] as String?).map { SensorID($0) }
            point.footpodSensor = (row[13] as String?).map { SensorID($0) }
            point.gpsSensor = (row[14] as String?).map { SensorID($0) }
            point.cadenceRPM = row[15]
            point.bikeSensor = (row[16] as String?).map { SensorID($0) }
            return point
        }
    }

    func events(of session: SessionID, in db: Database) throws -> [SessionEvent] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT e.offset_ns, e.kind, e.detail, s.key FROM event e LEFT JOIN sensor s ON s.id = e.sensor_id
                WHERE e.session_id = ? ORDER BY e.offset_ns, e.id
                """, arguments: [session.rawValue]
        ).map { row in
            let kind: String = row["kind"]
            let key: String? = row["key"]
            return SessionEvent(
                offsetNanoseconds: row["offset_ns"], kind: SessionEvent.Kind(rawValue: kind),
                sensor: key.map { SensorID($0) },
                detail: row["detail"])
        }
    }

    func laps(of session: SessionID, in db: Database) throws -> [Lap] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM lap WHERE session_id = ? ORDER BY lap_index", arguments: [session.rawValue]
        )
        .map { row in
            let trigger: String = row["trigger"]
            return Lap(
                index: row["lap_index"], trigger: LapTrigger(rawValue: trigger) ?? .manual,
                startElapsedSeconds: row["start_elapsed_s"], endElapsedSeconds: row["end_elapsed_s"],
                statistics: statistics(from: row))
        }
    }

    func splits(of session: SessionID, in db: Database) throws -> [Split] {
        try Row.fetchAll(db, sql: "SELECT * FROM split WHERE session_id = ? ORDER BY km", arguments: [session.rawValue])
            .map { row in
                Split(
                    kilometer: row["km"], distanceMeters: row["distance_m"], seconds: row["seconds"],
                    averageHeartRate: row["avg_hr_bpm"])
            }
    }

    private func statistics(from row: Row) -> RunStatistics {
        RunStatistics(
            distanceMeters: row["distance_m"] ?? 0, timerSeconds: row["timer_s"] ?? 0,
            movingSeconds: row["moving_s"] ?? 0,
            averageHeartRate: row["avg_hr_bpm"], maximumHeartRate: row["max_hr_bpm"],
            averageCadence: row["avg_cadence_spm"],
            maximumSpeed: row["max_speed_mps"], pointCount: row["point_count"] ?? 0,
            averageCrankCadence: row["avg_cadence_rpm"])
    }

    private func record(from row: Row, splits: [Split]) throws -> RunRecord {
        let stateName: String = row["state"]
        let state = SessionState(rawValue: stateName) ?? .finished
        var summary: RunSummary?
        if state == .finished {
            summary = RunSummary(
                elapsedSeconds: row["elapsed_s"] ?? 0, steps: row["steps"], statistics: statistics(from: row),
                splits: splits)
        }
        return RunRecord(
            id: SessionID(row["id"]), uuid: row["uuid"], state: state, source: row["source"],
            startWall: WallInstant(nanosecondsSinceEpoch: row["start_wall_ns"]),
            clockSource: ClockSource(rawValue: row["clock_source"] ?? "system") ?? .system, recovered: row["recovered"],
            summary: summary, queuedForUpload: row["queued"] ?? false,
            sport: RunSport(rawValue: row["sport"] ?? "run") ?? .run)
    }
}
