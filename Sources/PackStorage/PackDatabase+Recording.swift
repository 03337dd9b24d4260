import GRDB
import GRDBSQLite
import HandoffModel

extension PackDatabase {
    /// Creates the session row when a run starts.
    public func beginSession(
        uuid: String, startMonotonic: MonotonicInstant, startWall: WallInstant, source: String,
        clockSource: ClockSource = .system, sport: RunSport = .run
    ) throws -> SessionID {
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO session (uuid, state, source, start_wall_ns, start_mono_ns, clock_source, sport)
                    VALUES (?, 'recording', ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    uuid, source, startWall.nanosecondsSinceEpoch, startMonotonic.nanoseconds, clockSource.rawValue,
                    sport.rawValue,
                ])
            return SessionID(db.lastInsertedRowID)
        }
    }

    /// Writes a batch in one transaction: nothing of it, or all of it. On a file it runs on the
    /// recorder's own connection (`RecordingJournal`) with statements prepared once; an in-memory
    /// journal (tests) has one connection, GRDB's.
    public func commit(_ batch: SessionBatch) throws {
        guard !batch.isEmpty else { return }
        guard let path else {
            try writer.write { db in try self.write(batch, in: db) }
            return
        }
        do {
            try journal.withLock { journal in
                if journal == nil {
                    journal = try RecordingJournal(path: path, pageCacheKibibytes: Self.pageCacheKibibytes)
                }
                try journal!.transaction { statements in try self.write(batch, with: statements) }
            }
        } catch {
            forgetSensorRows()
            throw error
        }
    }

    /// Writes a batch inside a transaction GRDB has open (an import, an in-memory journal).
    func write(_ batch: SessionBatch, in db: Database) throws {
        do {
            try write(batch, with: JournalStatements(lending: db))
        } catch {
            forgetSensorRows()
            throw error
        }
    }

    /// Empties the cache of sensor rows: a transaction that failed may have inserted rows that
    /// its rollback took back.
    func forgetSensorRows() {
        sensorRows.withLock { $0.removeAll() }
    }

    func write(_ batch: SessionBatch, with statements: JournalStatements) throws {
        let session = batch.session.rawValue
        if !batch.points.isEmpty {
            var row = try statements(.point)
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
                row.bind(try p.heartRateSensor.map { try sensorRow(statements, $0, kind: .heartRate) })
                row.bind(try p.footpodSensor.map { try sensorRow(statements, $0, kind: .footpod) })
                row.bind(try p.gpsSensor.map { try sensorRow(statements, $0, kind: .gps) })
                row.bind(p.steps)
                row.bind(p.cadenceRPM)
                row.bind(try p.bikeSensor.map { try sensorRow(statements, $0, kind: .bike) })
                try row.step()
            }
        }
        for rr in batch.rrIntervals {
            let sensor = try sensorRow(statements, rr.sensor, kind: .heartRate)
            var row = try statements(.rrInterval)
            for (seq, value) in rr.intervals1024ths.enumerated() {
                row.bind(session)
                row.bind(sensor)
                row.bind(rr.offsetNanoseconds)
                row.bind(seq)
                row.bind(Int(value))
                try row.step()
            }
        }
        for event in batch.events {
            try insert(event, session: session, with: statements)
        }
        for lap in batch.laps { try insert(lap, session: session, with: statements) }
        if let wall = batch.correctedStartWall {
            // Points, events and laps are stored as offsets from the start: they move with it.
            var update = try statements(.startWall)
            update.bind(wall.nanosecondsSinceEpoch)
            update.bind(session)
            try update.step()
        }
        if let state = batch.state, state != .finished {
            var update = try statements(.state)
            update.bind(state.rawValue)
            update.bind(session)
            try update.step()
        }
        if let finish = batch.finish {
            try finishSession(session, summary: finish.summary, wall: finish.wall, recovered: false, with: statements)
        }
    }

    func insert(_ event: SessionEvent, session: Int64, with statements: JournalStatements) throws {
        let sensor = try event.sensor.map { try sensorRow(statements, $0, kind: .unknown) }
        var row = try statements(.event)
        row.bind(session)
        row.bind(event.offsetNanoseconds)
        row.bind(event.kind.rawValue)
        row.bind(sensor)
        row.bind(event.detail)
        try row.step()
    }

    func insert(_ lap: Lap, session: Int64, with statements: JournalStatements) throws {
        let s = lap.statistics
        var row = try statements(.lap)
        row.bind(session)
        row.bind(lap.index)
        row.bind(lap.trigger.rawValue)
        row.bind(lap.startElapsedSeconds)
        row.bind(lap.endElapsedSeconds)
        row.bind(s.distanceMeters)
        row.bind(s.timerSeconds)
        row.bind(s.movingSeconds)
        row.bind(s.averageHeartRate)
        row.bind(s.maximumHeartRate)
        row.bind(s.averageCadence)
        row.bind(s.maximumSpeed)
        row.bind(s.pointCount)
        row.bind(s.averageCrankCadence)
        try row.step()
    }

    /// Stores the summary and splits, marks the session finished and queues it for upload.
    func finishSession(
        _ session: Int64, summary: RunSummary, wall: WallInstant, recovered: Bool, with statements: JournalStatements
    ) throws {
        let s = summary.statistics
        var update = try statements(.finish)
        update.bind(recovered)
        update.bind(summary.elapsedSeconds)
        update.bind(s.timerSeconds)
        update.bind(s.movingSeconds)
        update.bind(s.distanceMeters)
        update.bind(s.averageHeartRate)
        update.bind(s.maximumHeartRate)
        update.bind(s.averageCadence)
        update.bind(s.maximumSpeed)
        update.bind(s.pointCount)
        update.bind(summary.steps)
        update.bind(s.averageCrankCadence)
        update.bind(session)
        try update.step()
        var delete = try statements(.deleteSplits)
        delete.bind(session)
        try delete.step()
        var row = try statements(.split)
        for split in summary.splits {
            row.bind(session)
            row.bind(split.kilometer)
            row.bind(split.distanceMeters)
            row.bind(split.seconds)
            row.bind(split.averageHeartRate)
            try row.step()
        }
        var outbox = try statements(.outbox)
        outbox.bind(session)
        outbox.bind(wall.nanosecondsSinceEpoch)
        try outbox.step()
    }

    /// The row id of a sensor, inserting it (with the kind the caller knows) if it is new.
    func sensorRow(_ statements: JournalStatements, _ id: SensorID, kind: SensorKind) throws -> Int64 {
        if let row = sensorRows.withLock({ $0[id] }) { return row }
        var select = try statements(.sensorSelect)
        select.bind(id.rawValue)
        let row: Int64
        if let existing = try select.firstInteger() {
            row = existing
        } else {
            var insert = try statements(.sensorInsert)
            insert.bind(id.rawValue)
            insert.bind(kind.rawValue)
            try insert.step()
            row = sqlite3_last_insert_rowid(statements.connection)
        }
        sensorRows.withLock { $0[id] = row }
        return row
    }
}
