import Foundation
import GRDB
import HandoffModel
import PackStorage
import TestSupport
import Testing

/// Faults inside the journal's own writes: what a batch leaves behind when SQLite refuses part of
/// it after other parts went in, and what recovery finds after a crash.
@Suite("Pack journal: a batch refused half way, a run left paused")
struct JournalFaultTests {
    static let start = MonotonicInstant(nanoseconds: 5_000_000_000)
    static let wall = CivilTime(year: 2026, month: 6, day: 14, hour: 7).instant

    static func point(_ second: Int) -> RecordPoint {
        RecordPoint(elapsedSeconds: second, distanceMeters: Double(second) * 3.1)
    }

    @Test("A batch whose events are refused after its points went in leaves none of its points (one transaction)")
    func refusedHalfWay() throws {
        let directory = try TemporaryDirectory("handoff-journal-fault")
        defer { directory.remove() }
        let path = directory.file("journal.sqlite").path
        let db = try PackDatabase(path: path)
        let id = try db.beginSession(uuid: "half", startMonotonic: Self.start, startWall: Self.wall, source: "live")
        var first = SessionBatch(session: id)
        first.points = [Self.point(0)]
        try db.commit(first)
        // The batch's points are written before its events; a trigger refuses the event, so the
        // failure comes after the points are in (the foreign-key case in PackDatabaseTests fails
        // at the first row, which a missing transaction would not show).
        try DatabaseQueue(path: path).write { connection in
            try connection.execute(
                sql: """
                    CREATE TRIGGER refuse_event BEFORE INSERT ON event
                    BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                    """)
        }
        var batch = SessionBatch(session: id)
        batch.points = (1...5).map(Self.point)
        batch.events = [SessionEvent(offsetNanoseconds: 0, kind: .start)]
        #expect {
            try db.commit(batch)
        } throws: { error in
            (error as? DatabaseError)?.message == "refused by the test"
        }
        #expect(try db.points(of: id).map(\.elapsedSeconds) == [0])
    }

    @Test("A run the crash caught paused is recovered like one caught recording: finished, marked, queued")
    func pausedRunRecovered() throws {
        let db = try PackDatabase.inMemory()
        let paused = try db.beginSession(
            uuid: "paused", startMonotonic: Self.start, startWall: Self.wall, source: "live")
        var batch = SessionBatch(session: paused)
        batch.points = (0...30).map(Self.point)
        batch.events = [
            SessionEvent(offsetNanoseconds: 0, kind: .start),
            SessionEvent(offsetNanoseconds: 30 * nanosecondsPerSecond, kind: .pause),
        ]
        batch.state = .paused
        try db.commit(batch)
        #expect(try db.run(paused)?.state == .paused)
        let recovered = try db.recoverOpenSessions(now: Self.wall)
        #expect(recovered.map(\.id) == [paused])
        let run = try #require(try db.run(paused))
        #expect(run.state == .finished && run.recovered && run.queuedForUpload)
        #expect(run.summary?.statistics.distanceMeters == 30 * 3.1)
        #expect(try db.recoverOpenSessions(now: Self.wall).isEmpty)
    }
}
