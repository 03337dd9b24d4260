import Foundation
import GRDB
import HandoffModel
import PackStorage
import Recorder
import TestSupport
import Testing

@Suite("Pack journal (SQLite through GRDB)")
struct PackDatabaseTests {
    static let start = MonotonicInstant(nanoseconds: 5_000_000_000)
    static let wall = CivilTime(year: 2026, month: 6, day: 14, hour: 7).instant

    static func point(_ elapsed: Int) -> RecordPoint {
        RecordPoint(
            elapsedSeconds: elapsed, latitude: 48.1 + Double(elapsed) * 1e-5, longitude: 11.5, altitudeMeters: 520.25,
            gpsFix: .threeD, hdop: 0.9, speedMetersPerSecond: 3.1, distanceMeters: Double(elapsed) * 3.1,
            heartRateBPM: elapsed % 7 == 0 ? nil : 140 + elapsed % 5, cadenceSPM: 172, isMoving: elapsed > 0,
            heartRateSensor: elapsed % 7 == 0 ? nil : "hr0", footpodSensor: "pod0", gpsSensor: "gps0")
    }

    @Test("Migrations create every table on a fresh database; a file database is in WAL mode and syncs every commit")
    func migrations() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let db = try PackDatabase(path: dir.path + "/handoff.sqlite")
        #expect(try db.journalMode() == "wal")
        // FULL (2), not the NORMAL that GRDB sets with WAL: a commit is on the card when it returns.
        #expect(try db.writerSynchronous() == 2)
        #expect(try db.integrityCheck() == "ok")
        // Opening again runs no migration twice.
        _ = try PackDatabase(path: dir.path + "/handoff.sqlite")
        let tables = try DatabaseQueue(path: dir.path + "/handoff.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        for table in ["event", "lap", "outbox", "point", "rr_interval", "sensor", "session", "split"] {
            #expect(tables.contains(table))
        }
    }

    @Test("Points, RR intervals, events and laps read back exactly as written")
    func roundTrip() throws {
        let db = try PackDatabase.inMemory()
        let id = try db.beginSession(uuid: "4d0c…", startMonotonic: Self.start, startWall: Self.wall, source: "live")
        var batch = SessionBatch(session: id)
        batch.points = (0..<30).map(Self.point)
        batch.rrIntervals = [
            RRIntervalBatch(sensor: "hr0", offsetNanoseconds: 1_500_000_000, intervals1024ths: [0, 1, 65535]),
            RRIntervalBatch(sensor: "hr0", offsetNanoseconds: 2_500_000_000, intervals1024ths: [853]),
        ]
        batch.events = [
            SessionEvent(offsetNanoseconds: 0, kind: .start),
            SessionEvent(offsetNanoseconds: 7_000_000_000, kind: .gapStart, sensor: "hr0", detail: "no data for 3 s"),
        ]
        batch.laps = [
            Lap(
                index: 1, trigger: .manual, startElapsedSeconds: 0, endElapsedSeconds: 20,
                statistics: RunStatistics(
                    distanceMeters: 62, timerSeconds: 20, movingSeconds: 20, averageHeartRate: 141.5,
                    maximumHeartRate: 144, averageCadence: 172, maximumSpeed: 3.1, pointCount: 21))
        ]
        try db.commit(batch)
        #expect(try db.points(of: id) == batch.points)
        #expect(try db.rrIntervals(of: id) == batch.rrIntervals)
        #expect(try db.events(of: id) == batch.events)
        #expect(try db.laps(of: id) == batch.laps)
    }

    @Test("Finishing stores the summary and splits and queues the run for upload in the same transaction")
    func finishQueuesUpload() throws {
        let db = try PackDatabase.inMemory()
        let id = try db.beginSession(
            uuid: "a1b2c3d4-0000", startMonotonic: Self.start, startWall: Self.wall, source: "live")
        var batch = SessionBatch(session: id)
        batch.points = [Self.point(0), Self.point(1)]
        let summary = RunSummary(
            elapsedSeconds: 1.5,
            statistics: RunStatistics(distanceMeters: 3.1, timerSeconds: 1.5, movingSeconds: 1, pointCount: 2),
            splits: [Split(kilometer: 1, distanceMeters: 3.1, seconds: 1.5, averageHeartRate: 141)])
        batch.finish = SessionBatch.Finish(summary: summary, wall: Self.wall)
        #expect(try db.outboxCount() == 0)
        try db.commit(batch)
        #expect(try db.outboxCount() == 1)
        let run = try #require(try db.run(id))
        #expect(run.state == .finished)
        #expect(run.summary == summary)
        #expect(run.queuedForUpload)
        #expect(try db.resolveRun("last") == id)
        #expect(try db.resolveRun("a1b2") == id)
        #expect(try db.resolveRun("a1") == nil, "too short a prefix")
        #expect(try db.resolveRun("\(id.rawValue)") == id)
    }

    @Test("A ride keeps its sport, its points' crank cadence and bike sensor, and its laps' and summary's cadence")
    func rideRoundTrip() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let db = try PackDatabase(path: dir.path + "/handoff.sqlite")
        let id = try db.beginSession(
            uuid: "b1ke0000-0001", startMonotonic: Self.start, startWall: Self.wall, source: "live", sport: .bike)
        var batch = SessionBatch(session: id)
        batch.points = (0..<10).map { elapsed in
            var p = Self.point(elapsed)
            p.cadenceSPM = nil
            p.footpodSensor = nil
            p.cadenceRPM = elapsed == 4 ? 0 : 84 + elapsed % 3
            p.bikeSensor = "bike0"
            return p
        }
        let statistics = RunStatistics(
            distanceMeters: 80, timerSeconds: 10, movingSeconds: 9, pointCount: 10, averageCrankCadence: 85.25)
        batch.laps = [
            Lap(index: 1, trigger: .sessionEnd, startElapsedSeconds: 0, endElapsedSeconds: 9, statistics: statistics)
        ]
        let summary = RunSummary(elapsedSeconds: 10, statistics: statistics, splits: [])
        batch.finish = SessionBatch.Finish(summary: summary, wall: Self.wall)
        try db.commit(batch)
        #expect(try db.points(of: id) == batch.points)
        #expect(try db.laps(of: id) == batch.laps)
        let run = try #require(try db.run(id))
        #expect(run.sport == .bike)
        #expect(run.summary == summary)
        // A run started before sports, and one started without naming one, are runs.
        let plain = try db.beginSession(
            uuid: "a0000000-0002", startMonotonic: Self.start, startWall: Self.wall, source: "live")
        #expect(try db.run(plain)?.sport == .run)
    }

    @Test("A failed batch leaves nothing behind (all or nothing)")
    func atomicBatch() throws {
        let db = try PackDatabase.inMemory()
        let id = try db.beginSession(uuid: "x", startMonotonic: Self.start, startWall: Self.wall, source: "live")
        var batch = SessionBatch(session: id)
        batch.points = [Self.point(0)]
        // An event for a session that does not exist violates the foreign key: the whole batch fails.
        var bad = SessionBatch(session: SessionID(999))
        bad.points = [Self.point(1)]
        bad.events = [SessionEvent(offsetNanoseconds: 0, kind: .start)]
        try db.commit(batch)
        let error = #expect(throws: DatabaseError.self) { try db.commit(bad) }
        #expect(error?.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY, "\(String(describing: error))")
        #expect(try db.points(of: id).count == 1)
        #expect(try db.points(of: SessionID(999)).isEmpty)
    }

    @Test("An open session is recovered at start: finished from its points, marked, queued, logged")
    func recovery() throws {
        let db = try PackDatabase.inMemory()
        let id = try db.beginSession(uuid: "open-run", startMonotonic: Self.start, startWall: Self.wall, source: "live")
        var batch = SessionBatch(session: id)
        batch.points = (0...120).map(Self.point)
        batch.events = [SessionEvent(offsetNanoseconds: 0, kind: .start)]
        try db.commit(batch)
        let recovered = try db.recoverOpenSessions(now: Self.wall)
        #expect(recovered.map(\.id) == [id])
        #expect(recovered[0].lastElapsedSeconds == 120)
        let run = try #require(try db.run(id))
        #expect(run.recovered && run.state == .finished && run.queuedForUpload)
        #expect(abs(run.summary!.statistics.distanceMeters - 120 * 3.1) < 1e-9)
        #expect(run.summary!.elapsedSeconds == 120)
        #expect(try db.laps(of: id).map(\.trigger) == [.sessionEnd])
        #expect(try db.events(of: id).last?.kind == .recovered)
        // Nothing is left to recover the second time.
        #expect(try db.recoverOpenSessions(now: Self.wall).isEmpty)
    }

    @Test("Sensors keep the names they were registered with")
    func sensors() throws {
        let db = try PackDatabase.inMemory()
        try db.registerSensors([
            SensorDescriptor(
                id: "hr0", kind: .heartRate, name: "Polar H10", address: "A0:9E:1A:00:00:01", transport: .ble)
        ])
        let id = try db.beginSession(uuid: "s", startMonotonic: Self.start, startWall: Self.wall, source: "live")
        var batch = SessionBatch(session: id)
        batch.points = [Self.point(1)]
        try db.commit(batch)
        try db.registerSensors([SensorDescriptor(id: "hr0", kind: .heartRate)])
        #expect(try db.points(of: id).first?.heartRateSensor == "hr0")
    }
}
