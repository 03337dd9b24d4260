import Foundation
import GRDB
import HandoffModel
import TestSupport
import Testing

@testable import PackStorage

/// The recorder's own connection (`RecordingJournal`): its settings, its waits for the other
/// writer, and what a refused commit leaves for the next one.
@Suite("Pack journal: the recorder's own connection")
struct RecordingJournalTests {
    static let start = MonotonicInstant(nanoseconds: 5_000_000_000)
    static let wall = CivilTime(year: 2026, month: 6, day: 14, hour: 7).instant

    static func point(_ elapsed: Int, heartRateSensor: SensorID = "hr0") -> RecordPoint {
        RecordPoint(
            elapsedSeconds: elapsed, latitude: 48.1 + Double(elapsed) * 1e-5, longitude: 11.5, altitudeMeters: 520,
            gpsFix: .threeD, hdop: 0.9, speedMetersPerSecond: 3.1, distanceMeters: Double(elapsed) * 3.1,
            heartRateBPM: 150, cadenceSPM: 172, isMoving: true, heartRateSensor: heartRateSensor,
            footpodSensor: nil, gpsSensor: "gps0")
    }

    @Test("The connection syncs every commit, keeps foreign keys and a small cache, in WAL mode")
    func settings() throws {
        let directory = try TemporaryDirectory("handoff-recording-journal")
        defer { directory.remove() }
        let db = try PackDatabase(path: directory.file("journal.sqlite").path)
        let id = try db.beginSession(uuid: "a", startMonotonic: Self.start, startWall: Self.wall, source: "live")
        var batch = SessionBatch(session: id)
        batch.points = [Self.point(0)]
        try db.commit(batch)
        let answers = try db.journal.withLock { journal in
            let journal = try #require(journal)
            return try ["journal_mode", "synchronous", "foreign_keys", "cache_size"].map {
                try journal.answer("PRAGMA \($0)")
            }
        }
        #expect(answers == ["wal", "2", "1", "-\(PackDatabase.pageCacheKibibytes)"])
        #expect(try db.writerSynchronous() == 2)
    }

    @Test("A commit waits for the other writer's transaction, then writes everything")
    func waitsForTheOtherWriter() throws {
        let directory = try TemporaryDirectory("handoff-recording-journal")
        defer { directory.remove() }
        let path = directory.file("journal.sqlite").path
        let db = try PackDatabase(path: path)
        let id = try db.beginSession(uuid: "w", startMonotonic: Self.start, startWall: Self.wall, source: "live")
        var first = SessionBatch(session: id)
        first.points = [Self.point(0)]
        try db.commit(first)

        // Another connection holds the write lock for a second (as the sync worker's writes do).
        let other = try DatabaseQueue(path: path)
        let held = DispatchSemaphore(value: 0)
        let holder = Thread {
            try? other.inDatabase { connection in
                try connection.execute(sql: "BEGIN IMMEDIATE")
                held.signal()
                Thread.sleep(forTimeInterval: 1)
                try connection.execute(sql: "COMMIT")
            }
        }
        holder.start()
        held.wait()
        var second = SessionBatch(session: id)
        second.points = (1...3).map { Self.point($0) }
        let started = Date()
        try db.commit(second)
        #expect(Date().timeIntervalSince(started) > 0.5, "the commit did not wait for the lock")
        #expect(try db.points(of: id).map(\.elapsedSeconds) == [0, 1, 2, 3])
    }

    @Test("A commit refused after it added a sensor leaves nothing; the retry writes it all, with that sensor")
    func refusedCommitForgetsItsSensorRows() throws {
        let directory = try TemporaryDirectory("handoff-recording-journal")
        defer { directory.remove() }
        let path = directory.file("journal.sqlite").path
        let db = try PackDatabase(path: path)
        let id = try db.beginSession(uuid: "r", startMonotonic: Self.start, startWall: Self.wall, source: "live")
        try DatabaseQueue(path: path).write { connection in
            try connection.execute(
                sql: """
                    CREATE TRIGGER refuse_event BEFORE INSERT ON event
                    BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                    """)
        }
        // The strap is new to the journal: the batch inserts its row, then the event is refused.
        var batch = SessionBatch(session: id)
        batch.points = (0...2).map { Self.point($0, heartRateSensor: "new-strap") }
        batch.events = [SessionEvent(offsetNanoseconds: 0, kind: .start)]
        #expect(throws: DatabaseError.self) { try db.commit(batch) }
        #expect(try db.points(of: id).isEmpty)

        // Another sensor takes the next row id; the retry must not reuse the rolled-back one.
        try DatabaseQueue(path: path).write { connection in
            try connection.execute(sql: "DROP TRIGGER refuse_event")
            try connection.execute(sql: "INSERT INTO sensor (key, kind) VALUES ('someone-else', 'heart_rate')")
        }
        try db.commit(batch)
        let sensors = try DatabaseQueue(path: path).read { connection in
            try String.fetchAll(
                connection,
                sql:
                    "SELECT DISTINCT sensor.key FROM point JOIN sensor ON sensor.id = point.hr_sensor WHERE session_id = ?",
                arguments: [id.rawValue])
        }
        #expect(sensors == ["new-strap"])
        #expect(try db.points(of: id).map(\.elapsedSeconds) == [0, 1, 2])
        #expect(try db.integrityCheck() == "ok")
    }

    @Test("The same batches read back the same from a file journal and an in-memory one")
    func fileAndMemoryAgree() throws {
        let directory = try TemporaryDirectory("handoff-recording-journal")
        defer { directory.remove() }
        let file = try PackDatabase(path: directory.file("journal.sqlite").path)
        let memory = try PackDatabase.inMemory()
        var read: [[RecordPoint]] = []
        for db in [file, memory] {
            let id = try db.beginSession(uuid: "m", startMonotonic: Self.start, startWall: Self.wall, source: "live")
            for second in 0..<5 {
                var batch = SessionBatch(session: id)
                batch.points = [Self.point(second)]
                batch.rrIntervals = [
                    RRIntervalBatch(
                        sensor: "hr0", offsetNanoseconds: Int64(second) * nanosecondsPerSecond,
                        intervals1024ths: [800, 810])
                ]
                if second == 2 { batch.events = [SessionEvent(offsetNanoseconds: 0, kind: .pause, detail: "é ✓")] }
                try db.commit(batch)
            }
            #expect(try db.events(of: id).map(\.detail) == ["é ✓"])
            read.append(try db.points(of: id))
        }
        #expect(read[0] == read[1])
        #expect(read[0].count == 5)
    }
}
